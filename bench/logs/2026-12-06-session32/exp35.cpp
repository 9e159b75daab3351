// Where stream-K's time goes: (a) the launcher's workspace steps alone (allocation from the
// pool, zeroed flags, free) per launch, timed with CUDA events; (b) the gemm launches of a few
// shapes with stream-K on and off, for ncu to time the kernels alone (argv: "ncu").
#include "GpuTest.h"
#include "gemm.h"
#include <cstring>
using namespace tlc::gputest;
int main(int argc, char **argv) {
  GpuContext gpu;
  bool ncu = argc > 1 && std::strcmp(argv[1], "ncu") == 0;
  if (!ncu) {
    for (int64_t slot : {int64_t(65536), int64_t(131072)}) {
      auto steps = [&] {
        tlc::rt::Workspace w;
        CUdeviceptr at = 0;
        CHECK_TLC(tlc::rt::prepareStreamK(288, 132, slot, gpu.stream(), w, &at));
      };
      double ms = medianMs(gpu, 5, 20, steps);
      std::printf("OVERHEAD workspace+memset+free slot=%lld: %.2f us per launch\n", (long long)slot,
                  ms * 1e3);
    }
  }
  struct S {
    int64_t m, n, k;
    int v;
  };
  namespace G = tlc::gemm::gemm;
  for (S s : {S{1000, 1112, 776, 1}, S{32, 4096, 4096, 3}, S{3001, 3000, 1000, 0},
              S{512, 3000, 8192, 1}}) {
    DeviceBuffer a(s.m * s.k * 2), b(s.k * s.n * 2), c(s.m * s.n * 2);
    randomBf16(a, s.m * s.k, 1);
    randomBf16(b, s.k * s.n, 2);
    tlc::rt::Status (*f[4])(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t, int64_t,
                            int64_t) = {G::variant0::launch, G::variant1::launch,
                                        G::variant2::launch, G::variant3::launch};
    for (bool split : {false, true}) {
      tlc::rt::setStreamK(split);
      auto go = [&] { CHECK_TLC(f[s.v](gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n)); };
      if (ncu) {
        go();
        go();
        gpu.synchronize();
        continue;
      }
      double ms = medianMs(gpu, 3, 10, go);
      std::printf("LAUNCH %lldx%lldx%lld v%d %s %.2f us\n", (long long)s.m, (long long)s.n,
                  (long long)s.k, s.v, split ? "sk" : "dp", ms * 1e3);
    }
  }
}
