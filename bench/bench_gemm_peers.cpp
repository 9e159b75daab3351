// tlc's GEMM (kernels/gemm.tile, bf16 in, f32 accumulation, bf16 out) against cuBLAS on the same
// tensors in one process, timed interleaved with CUDA events: aligned shapes (the TMA + wgmma
// entry) and shapes whose rows or base are not 16-byte aligned (odd N, odd K, A offset by one
// element: the plain entry, the cp.async + wgmma ring with element loads). Each line: both
// medians, TFLOP/s (2 M N K / time), the ratio, and the largest difference between the two
// results relative to the largest |C| (both accumulate in f32; bf16 output). Roofline: 2 M N K
// flops; (M K + K N + M N) * 2 bytes. Each shape runs the default build of gemm.tile, the one
// with --codegen=mma-sync and the one with --codegen=register (build=...).
// Usage: bench_gemm_peers [M N K offset]...

#include "GpuTest.h"
#include "gemm.h"
#include "gemm_mma_sync.h"
#include "gemm_register.h"

#include "CublasPeer.h"

#include <cmath>
#include <cstdlib>

using namespace tlc::gputest;

namespace {
struct Shape {
  int64_t m, n, k;
  int64_t offset; // elements A's base is moved by (0: aligned base)
};

} // namespace

int main(int argc, char **argv) {
  GpuContext gpu;
  std::vector<Shape> shapes = {{4096, 4096, 4096, 0}, {4096, 4095, 4096, 0}, {4096, 4096, 4095, 0},
                               {4096, 4096, 4096, 1}, {8192, 8192, 8192, 0}, {8192, 8191, 8192, 0},
                               {2048, 2048, 2048, 0}, {2048, 2047, 2049, 0}, {1000, 1111, 777, 0}};
  if (argc > 1 && (argc - 1) % 4 == 0) {
    shapes.clear();
    for (int i = 1; i < argc; i += 4)
      shapes.push_back({std::atoll(argv[i]), std::atoll(argv[i + 1]), std::atoll(argv[i + 2]),
                        std::atoll(argv[i + 3])});
  }
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, gpu.stream()));
  for (const Shape &s : shapes) {
    size_t aCount = size_t(s.m * s.k + s.offset), bCount = size_t(s.k * s.n);
    size_t cCount = size_t(s.m * s.n);
    DeviceBuffer a(aCount * 2), b(bCount * 2), c(cCount * 2), ref(cCount * 2);
    randomBf16(a, aCount, 1);
    randomBf16(b, bCount, 2);
    CUdeviceptr aPtr = a.ptr() + 2 * s.offset;
    auto peerLaunch = [&] {
      cublasRowMajorGemm(handle, s.m, s.n, s.k, aPtr, b.ptr(), ref.ptr(), CUDA_R_16BF);
    };
    // Each build of gemm.tile against cuBLAS on the same tensors.
    auto run = [&](const char *build, auto tlcLaunch) {
      CHECK_CU(cuMemsetD16(c.ptr(), 0x7fc0, cCount)); // NaN: every element must be written
      tlcLaunch();
      peerLaunch();
      gpu.synchronize();
      std::vector<uint16_t> got(cCount), want(cCount);
      CHECK_CU(cuMemcpyDtoH(got.data(), c.ptr(), cCount * 2));
      CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), cCount * 2));
      double maxDiff = 0, maxRef = 0;
      bool finite = true;
      for (size_t i = 0; i < cCount; ++i) {
        float x = fromBf16(got[i]), y = fromBf16(want[i]);
        finite &= std::isfinite(x);
        maxDiff = std::max(maxDiff, double(std::fabs(x - y)));
        maxRef = std::max(maxRef, double(std::fabs(y)));
      }
      auto [tlcMs, peerMs] = interleaved(gpu, 5, tlcLaunch, peerLaunch);
      double flops = 2.0 * s.m * s.n * s.k;
      std::printf("BENCH gemm-peers bf16 %lldx%lldx%lld offset=%lld build=%s tlc_ms=%.4f "
                  "tlc_TFLOPs=%.1f cublas_ms=%.4f cublas_TFLOPs=%.1f ratio=%.3f variant=%d "
                  "rel_diff=%.2e %s\n",
                  (long long)s.m, (long long)s.n, (long long)s.k, (long long)s.offset, build, tlcMs,
                  flops / (tlcMs * 1e-3) / 1e12, peerMs, flops / (peerMs * 1e-3) / 1e12,
                  peerMs / tlcMs, tlc::gemm::gemm::select(s.m, s.k, s.n),
                  maxDiff / std::max(maxRef, 1e-30),
                  finite && maxDiff <= 0.02 * maxRef ? "OK" : "MISMATCH");
    };
    run("default", [&] {
      CHECK_TLC(tlc::gemm::gemm::launch(gpu.stream(), aPtr, b.ptr(), c.ptr(), s.m, s.k, s.n));
    });
    run("mma-sync", [&] {
      CHECK_TLC(
          tlc::gemm_mma_sync::gemm::launch(gpu.stream(), aPtr, b.ptr(), c.ptr(), s.m, s.k, s.n));
    });
    run("register", [&] {
      CHECK_TLC(
          tlc::gemm_register::gemm::launch(gpu.stream(), aPtr, b.ptr(), c.ptr(), s.m, s.k, s.n));
    });
  }
  cublasDestroy(handle);
  return 0;
}
