// GEMM sweep of the Hopper GEMM issue (bf16 in, f32 accumulation, bf16 out): the shapes
// peers.py measures with --gemm in the same run. Prints one BENCH line per shape and the
// configuration the dispatcher chose. Roofline: 2 M N K flops; bytes (M K + K N + M N) * 2.

#include "GpuTest.h"
#include "gemm.h"
#include "gemm_loop.h"
#include "gemm_sm_90.h"
#include "gemm_sm_90_w16.h"

#include <cstdlib>

using namespace tlc::gputest;

int main(int argc, char **argv) {
  GpuContext gpu;
  struct Shape {
    int64_t m, n, k;
  };
  std::vector<Shape> shapes = {{8192, 8192, 8192},
                               {4096, 4096, 4096},
                               {2048, 2048, 2048},
                               {4096, 4096, 4104},
                               {1000, 1112, 776}};
  // Optional: one shape from the command line, M N K.
  if (argc == 4)
    shapes = {{std::atoll(argv[1]), std::atoll(argv[2]), std::atoll(argv[3])}};
  using PlainLaunch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t,
                                          int64_t, int64_t);
  for (const Shape &s : shapes) {
    DeviceBuffer a(size_t(s.m * s.k) * 2), b(size_t(s.k * s.n) * 2), c(size_t(s.m * s.n) * 2);
    randomBf16(a, size_t(s.m * s.k), 1);
    randomBf16(b, size_t(s.k * s.n), 2);
    // One BENCH line: `label`, the shape, the median time and TFLOP/s (2 M N K / time), and the
    // configuration the dispatcher chose when `variant` >= 0.
    auto bench = [&](const char *label, int warmUps, int timed, PlainLaunch launch, int variant) {
      double ms = medianMs(gpu, warmUps, timed, [&] {
        CHECK_TLC(launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
      });
      std::printf("BENCH %s bf16 %lldx%lldx%lld ms=%.4f TFLOPs=%.1f", label, (long long)s.m,
                  (long long)s.n, (long long)s.k, ms, 2.0 * s.m * s.n * s.k / (ms * 1e-3) / 1e12);
      if (variant >= 0)
        std::printf(" variant=%d", variant);
      std::printf("\n");
    };
    bench("gemm", 10, 50, tlc::gemm::gemm::launch, tlc::gemm::gemm::select(s.m, s.k, s.n));
    // The same kernel compiled for sm_90 (mma.sync strategy), on the same GPU ...
    bench("gemm-mma.sync(sm_90)", 5, 20, tlc::gemm_sm_90::gemm::launch,
          tlc::gemm_sm_90::gemm::select(s.m, s.k, s.n));
    // ... its 128x128 configuration whatever the dispatcher chose ...
    bench("gemm-mma.sync(sm_90, 128x128)", 5, 20, tlc::gemm_sm_90::gemm::variant1::launch, -1);
    // ... the same product written with a plain loop (test/gpu/kernels/gemm_loop.tile, 128x128
    // blocks): the register strategy, each step's tiles waited for before its mma.sync ...
    bench("gemm-loop(register strategy, sm_90a)", 5, 20, tlc::gemm_loop::gemm_loop::launch, -1);
    // ... and its 128x128 configuration with 16 warps per block (-D WARPS=16: half the
    // registers per thread, twice the warps issuing mma.sync per multiprocessor; a -D of WARPS,
    // which a configuration sets, compiles one kernel).
    bench("gemm-mma.sync(sm_90, 128x128, 16 warps)", 5, 20, tlc::gemm_sm_90_w16::gemm::launch, -1);
  }
  return 0;
}
