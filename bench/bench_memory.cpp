// Memory-bound kernels against the copy roofline, in one process: kernels/fp8_cast.tile (per
// tensor and per 1x128 block), kernels/softmax.tile and the bf16 norms of kernels/rmsnorm.tile
// and kernels/layernorm.tile (with their fused residual variants), timed with CUDA events
// (median of 50 after 10 warm-ups) beside a device-to-device copy of the same buffers. Usage:
//   bench_memory [M N]...   (default 32768 4096, 8192 8192 and 8192 32768)
// Bytes per element, what each kernel must move at least: fp8 casts read 2 and write 1 (+4 per
// 128 for the block scales); softmax (f32) reads 4 and writes 4 (a second read of a row longer
// than its tile is not counted); rmsnorm and layernorm read X and write Y (4), their residual
// variants read X and R and write Y and H (8), plus 2 bytes per column for W (and 2 for B).

#include "GpuTest.h"
#include "fp8_cast.h"
#include "layernorm.h"
#include "rmsnorm.h"
#include "softmax.h"

#include <cstdlib>

using namespace tlc::gputest;

int main(int argc, char **argv) {
  GpuContext gpu;
  std::vector<std::pair<int64_t, int64_t>> shapes;
  for (int i = 1; i + 1 < argc; i += 2)
    shapes.push_back({std::atoll(argv[i]), std::atoll(argv[i + 1])});
  if (shapes.empty())
    shapes = {{32768, 4096}, {8192, 8192}, {8192, 32768}};
  for (auto [m, n] : shapes) {
    size_t elements = size_t(m) * size_t(n), nb = (size_t(n) + 127) / 128;
    DeviceBuffer x(elements * 4), y(elements * 4), s(size_t(m) * nb * 4);
    randomBf16(x, elements, 7);
    // The copy roofline: read + write of `bytes`.
    auto copyGBps = [&](size_t bytes) {
      double ms = medianMs(
          gpu, 10, 50, [&] { CHECK_CU(cuMemcpyDtoDAsync(y.ptr(), x.ptr(), bytes, gpu.stream())); });
      return 2.0 * double(bytes) / (ms * 1e-3) / 1e9;
    };
    double copy = copyGBps(elements * 2);
    double castMs = medianMs(gpu, 10, 50, [&] {
      CHECK_TLC(tlc::fp8_cast::fp8_cast::launch(gpu.stream(), x.ptr(), y.ptr(), 2.0f, m, n));
    });
    double blocksMs = medianMs(gpu, 10, 50, [&] {
      CHECK_TLC(tlc::fp8_cast::fp8_cast_blocks::launch(gpu.stream(), x.ptr(), y.ptr(), s.ptr(), m,
                                                       n, int64_t(nb)));
    });
    double castGBps = 3.0 * double(elements) / (castMs * 1e-3) / 1e9;
    double blocksGBps = (3.0 * double(elements) + 4.0 * double(m * nb)) / (blocksMs * 1e-3) / 1e9;
    std::printf("BENCH fp8_cast %lldx%lld ms=%.4f GBps=%.1f vs_copy=%.3f\n", (long long)m,
                (long long)n, castMs, castGBps, castGBps / copy);
    std::printf("BENCH fp8_cast_blocks %lldx%lld ms=%.4f GBps=%.1f vs_copy=%.3f\n", (long long)m,
                (long long)n, blocksMs, blocksGBps, blocksGBps / copy);
    // The bf16 norms on X (still the random bf16 values), with a residual R, W and B.
    DeviceBuffer r(elements * 2), h(elements * 2), w(size_t(n) * 2), b(size_t(n) * 2);
    randomBf16(r, elements, 11);
    randomBf16(w, size_t(n), 13);
    randomBf16(b, size_t(n), 15);
    auto reportNorm = [&](const char *name, double ms, double bytes) {
      double gbps = bytes / (ms * 1e-3) / 1e9;
      std::printf("BENCH %s %lldx%lld ms=%.4f GBps=%.1f vs_copy=%.3f\n", name, (long long)m,
                  (long long)n, ms, gbps, gbps / copy);
    };
    double rmsMs = medianMs(gpu, 10, 50, [&] {
      CHECK_TLC(
          tlc::rmsnorm::rmsnorm::launch(gpu.stream(), x.ptr(), w.ptr(), y.ptr(), 1e-6f, m, n));
    });
    double rmsResidualMs = medianMs(gpu, 10, 50, [&] {
      CHECK_TLC(tlc::rmsnorm::rmsnorm_residual::launch(gpu.stream(), x.ptr(), r.ptr(), w.ptr(),
                                                       y.ptr(), h.ptr(), 1e-6f, m, n));
    });
    double layerMs = medianMs(gpu, 10, 50, [&] {
      CHECK_TLC(tlc::layernorm::layernorm::launch(gpu.stream(), x.ptr(), w.ptr(), b.ptr(), y.ptr(),
                                                  1e-5f, m, n));
    });
    double layerResidualMs = medianMs(gpu, 10, 50, [&] {
      CHECK_TLC(tlc::layernorm::layernorm_residual::launch(gpu.stream(), x.ptr(), r.ptr(), w.ptr(),
                                                           b.ptr(), y.ptr(), h.ptr(), 1e-5f, m, n));
    });
    reportNorm("rmsnorm_bf16", rmsMs, 4.0 * double(elements) + 2.0 * double(n));
    reportNorm("rmsnorm_residual_bf16", rmsResidualMs, 8.0 * double(elements) + 2.0 * double(n));
    reportNorm("layernorm_bf16", layerMs, 4.0 * double(elements) + 4.0 * double(n));
    reportNorm("layernorm_residual_bf16", layerResidualMs,
               8.0 * double(elements) + 4.0 * double(n));
    std::vector<float> values(elements);
    randomFill(values, 9);
    upload(x.ptr(), values);
    double copy32 = copyGBps(elements * 4);
    double softmaxMs = medianMs(gpu, 10, 50, [&] {
      CHECK_TLC(tlc::softmax::launch(gpu.stream(), x.ptr(), y.ptr(), m, n));
    });
    double softmaxGBps = 8.0 * double(elements) / (softmaxMs * 1e-3) / 1e9;
    std::printf("BENCH softmax_f32 %lldx%lld ms=%.4f GBps=%.1f vs_copy=%.3f (copy %.1f GB/s)\n",
                (long long)m, (long long)n, softmaxMs, softmaxGBps, softmaxGBps / copy32, copy32);
  }
  return 0;
}
