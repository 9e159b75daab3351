// GEMM sweep of the Hopper GEMM issue (bf16 in, f32 accumulation, bf16 out): the shapes
// peers.py measures with --gemm in the same run. Prints one BENCH line per shape and the
// configuration the dispatcher chose. Roofline: 2 M N K flops; bytes (M K + K N + M N) * 2.

#include "GpuTest.h"
#include "gemm.h"
#include "gemm_sm_90.h"
#include "gemm_sm_90_w16.h"
#include "gemm_loop.h"

#include <cstdlib>

using namespace tlc::gputest;

int main(int argc, char **argv) {
  GpuContext gpu;
  struct Shape {
    int64_t m, n, k;
  };
  std::vector<Shape> shapes = {{8192, 8192, 8192}, {4096, 4096, 4096}, {2048, 2048, 2048},
                               {4096, 4096, 4104}, {1000, 1112, 776}};
  // Optional: one shape from the command line, M N K.
  if (argc == 4)
    shapes = {{std::atoll(argv[1]), std::atoll(argv[2]), std::atoll(argv[3])}};
  for (const Shape &s : shapes) {
    DeviceBuffer a(size_t(s.m * s.k) * 2), b(size_t(s.k * s.n) * 2), c(size_t(s.m * s.n) * 2);
    randomBf16(a, size_t(s.m * s.k), 1);
    randomBf16(b, size_t(s.k * s.n), 2);
    double ms = medianMs(gpu, 10, 50, [&] {
      CHECK_TLC(tlc::gemm::gemm::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
    });
    double tflops = 2.0 * s.m * s.n * s.k / (ms * 1e-3) / 1e12;
    std::printf("BENCH gemm bf16 %lldx%lldx%lld ms=%.4f TFLOPs=%.1f variant=%d\n",
                (long long)s.m, (long long)s.n, (long long)s.k, ms, tflops,
                tlc::gemm::gemm::select(s.m, s.k, s.n));
    // The same kernel compiled for sm_90 (mma.sync strategy), on the same GPU.
    double msMma = medianMs(gpu, 5, 20, [&] {
      CHECK_TLC(tlc::gemm_sm_90::gemm::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k,
                                              s.n));
    });
    std::printf("BENCH gemm-mma.sync(sm_90) bf16 %lldx%lldx%lld ms=%.4f TFLOPs=%.1f variant=%d\n",
                (long long)s.m, (long long)s.n, (long long)s.k, msMma,
                2.0 * s.m * s.n * s.k / (msMma * 1e-3) / 1e12,
                tlc::gemm_sm_90::gemm::select(s.m, s.k, s.n));
    // ... its 128x128 configuration whatever the dispatcher chose (fragments loaded a k step
    // ahead; the 128x256 one has no registers for that) ...
    double msV1 = medianMs(gpu, 5, 20, [&] {
      CHECK_TLC(tlc::gemm_sm_90::gemm::variant1::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(),
                                                        s.m, s.k, s.n));
    });
    std::printf("BENCH gemm-mma.sync(sm_90, 128x128) bf16 %lldx%lldx%lld ms=%.4f TFLOPs=%.1f\n",
                (long long)s.m, (long long)s.n, (long long)s.k, msV1,
                2.0 * s.m * s.n * s.k / (msV1 * 1e-3) / 1e12);
    // ... the same product written with a plain loop (test/gpu/kernels/gemm_loop.tile, 128x128
    // blocks): the register strategy, each step's tiles waited for before its mma.sync ...
    double msLoop = medianMs(gpu, 5, 20, [&] {
      CHECK_TLC(tlc::gemm_loop::gemm_loop::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m,
                                                  s.k, s.n));
    });
    std::printf("BENCH gemm-loop(register strategy, sm_90a) bf16 %lldx%lldx%lld ms=%.4f "
                "TFLOPs=%.1f\n",
                (long long)s.m, (long long)s.n, (long long)s.k, msLoop,
                2.0 * s.m * s.n * s.k / (msLoop * 1e-3) / 1e12);
    // ... and with 16 warps per block (-D WARPS=16: half the registers per thread, twice the
    // warps issuing mma.sync per multiprocessor).
    double msW16 = medianMs(gpu, 5, 20, [&] {
      CHECK_TLC(tlc::gemm_sm_90_w16::gemm::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m,
                                                  s.k, s.n));
    });
    std::printf("BENCH gemm-mma.sync(sm_90, 16 warps) bf16 %lldx%lldx%lld ms=%.4f TFLOPs=%.1f "
                "variant=%d\n",
                (long long)s.m, (long long)s.n, (long long)s.k, msW16,
                2.0 * s.m * s.n * s.k / (msW16 * 1e-3) / 1e12,
                tlc::gemm_sm_90_w16::gemm::select(s.m, s.k, s.n));
  }
  return 0;
}
