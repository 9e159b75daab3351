// Pairs diagnosis: each configuration of gemm.tile, clusters off or on, small shapes; a launch
// that does not finish within 3 s is reported as a hang (and the program exits).
#include "GpuTest.h"
#include "gemm.h"
#include <chrono>
#include <cstring>
#include <thread>
using namespace tlc::gputest;
int main(int argc, char **argv) {
  GpuContext gpu;
  bool on = argc > 1 && std::strcmp(argv[1], "on") == 0;
  int sk = argc > 2 ? std::atoi(argv[2]) : 0;
  tlc::rt::setClusters(on);
  tlc::rt::setStreamK(sk != 0);
  namespace G = tlc::gemm::gemm;
  using F = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t, int64_t,
                                int64_t);
  F fs[] = {G::variant0::launch, G::variant1::launch, G::variant2::launch, G::variant3::launch,
            G::launch};
  struct S {
    int64_t m, n, k;
  };
  S shapes[] = {{256, 256, 64}, {256, 256, 640}, {1100, 1000, 520}, {1000, 1112, 776}};
  for (S s : shapes)
    for (int v = 0; v < 5; ++v) {
      DeviceBuffer a(s.m * s.k * 2), b(s.k * s.n * 2), c(s.m * s.n * 2);
      randomBf16(a, s.m * s.k, 1);
      randomBf16(b, s.k * s.n, 2);
      tlc::rt::Status st = fs[v](gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n);
      if (!st.ok()) {
        std::printf("ERR %s v%d %lldx%lldx%lld: %s\n", on ? "on" : "off", v, (long long)s.m,
                    (long long)s.n, (long long)s.k, st.message().c_str());
        continue;
      }
      auto t0 = std::chrono::steady_clock::now();
      CUresult r;
      while ((r = cuStreamQuery(gpu.stream())) == CUDA_ERROR_NOT_READY) {
        if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(3)) {
          std::printf("HANG %s sk%d v%d %lldx%lldx%lld\n", on ? "on" : "off", sk, v, (long long)s.m,
                      (long long)s.n, (long long)s.k);
          std::fflush(stdout);
          std::_Exit(3);
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
      }
      std::printf("%s %s sk%d v%d %lldx%lldx%lld\n", r == CUDA_SUCCESS ? "OK" : "CUERR",
                  on ? "on" : "off", sk, v, (long long)s.m, (long long)s.n, (long long)s.k);
      if (r != CUDA_SUCCESS)
        std::_Exit(4);
    }
}
