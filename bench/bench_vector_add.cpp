// Benchmark of kernels/vector_add.tile against a device-to-device copy (the
// local memory roofline).

#include "GpuTest.h"
#include "vector_add.h"

using namespace tlc::gputest;

namespace {
/// Bit pattern of a float, for cuMemsetD32.
unsigned floatBits(float f) {
  unsigned bits;
  std::memcpy(&bits, &f, sizeof(bits));
  return bits;
}
} // namespace

int main() {
  GpuContext gpu;
  const int64_t n = int64_t(1) << 28;
  const size_t bytes = static_cast<size_t>(n) * sizeof(float);
  DeviceBuffer x(bytes), y(bytes), z(bytes);
  CHECK_CU(cuMemsetD32Async(x.ptr(), floatBits(1.5f), static_cast<size_t>(n), gpu.stream()));
  CHECK_CU(cuMemsetD32Async(y.ptr(), floatBits(-0.25f), static_cast<size_t>(n), gpu.stream()));
  poison(z, gpu.stream());

  double addMs = medianMs(gpu, 10, 100, [&] {
    CHECK_TLC(tlc::vector_add::launch(gpu.stream(), x.ptr(), y.ptr(), z.ptr(), n));
  });
  // Sanity: the benchmark measured a kernel that computed the right thing.
  const size_t probes[] = {0, static_cast<size_t>(n) / 3, static_cast<size_t>(n) - 1};
  for (size_t i : probes) {
    float v = 0;
    CHECK_CU(cuMemcpyDtoH(&v, z.ptr() + i * sizeof(float), sizeof(v)));
    if (v != 1.25f) {
      std::printf("bench_vector_add: Z[%zu] = %g, expected 1.25\n", i, static_cast<double>(v));
      return 1;
    }
  }
  // 2 reads + 1 write of 4 bytes per element.
  double addGBps = 12.0 * static_cast<double>(n) / (addMs * 1e-3) / 1e9;

  // The same 4n bytes copied device to device: read + write.
  double copyMs = medianMs(
      gpu, 10, 100, [&] { CHECK_CU(cuMemcpyDtoDAsync(z.ptr(), x.ptr(), bytes, gpu.stream())); });
  double copyGBps = 2.0 * static_cast<double>(bytes) / (copyMs * 1e-3) / 1e9;

  std::printf("vector_add n=%lld: median %.4f ms, %.1f GB/s (12 B/element)\n",
              static_cast<long long>(n), addMs, addGBps);
  std::printf("cuMemcpyDtoD %zu bytes: median %.4f ms, %.1f GB/s (read+write)\n", bytes, copyMs,
              copyGBps);
  std::printf("vector_add / copy roofline: %.3f\n", addGBps / copyGBps);
  std::printf("BENCH vector_add n=%lld ms=%.4f GBps=%.1f\n", static_cast<long long>(n), addMs,
              addGBps);
  std::printf("BENCH memcpy_dtod bytes=%zu ms=%.4f GBps=%.1f\n", bytes, copyMs, copyGBps);
  std::printf("BENCH vector_add_vs_copy ratio=%.3f\n", addGBps / copyGBps);
  return 0;
}
