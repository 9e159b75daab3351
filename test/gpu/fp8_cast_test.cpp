// GPU test of kernels/fp8_cast.tile: per-tensor and per-1x128-block scaled bf16 -> f8e4m3
// casts on ragged shapes (columns not a multiple of 128, rows not a multiple of the block),
// with zero runs and outliers, against a host reference that repeats the kernel's f32
// arithmetic and rounds with the brute-force encoder of Float8Reference.h.

#include "Float8Reference.h"
#include "GpuTest.h"
#include "fp8_cast.h"

#include <algorithm>

using namespace tlc::gputest;

static bool runCase(const GpuContext &gpu, int64_t m, int64_t n, uint32_t seed) {
  size_t M = m, N = n, NB = (N + 127) / 128;
  std::mt19937 gen(seed);
  std::vector<uint16_t> x(M * N);
  for (size_t i = 0; i < M * N; ++i) {
    float v = (float(gen()) / 4294967296.0f - 0.5f) * 8.0f;
    if (gen() % 97 == 0)
      v *= 300.0f; // outliers set a run's amax
    x[i] = toBf16(v);
  }
  // One all-zero run when there is room: its scale is 1.
  if (M > 1 && N > 130)
    for (size_t j = 128; j < 256 && j < N; ++j)
      x[N + j] = toBf16(0.0f);
  DeviceBuffer dx(M * N * 2), dy(M * N + GuardElements), dyb(M * N + GuardElements),
      ds((M * NB + GuardElements) * 4);
  if (M * N != 0)
    CHECK_CU(cuMemcpyHtoD(dx.ptr(), x.data(), M * N * 2));
  for (const DeviceBuffer *out : {&dy, &dyb, &ds})
    poison(*out, gpu.stream());
  const float scale = 37.5f;
  CHECK_TLC(tlc::fp8_cast::fp8_cast::launch(gpu.stream(), dx.ptr(), dy.ptr(), scale, m, n));
  CHECK_TLC(tlc::fp8_cast::fp8_cast_blocks::launch(gpu.stream(), dx.ptr(), dyb.ptr(), ds.ptr(), m,
                                                   n, int64_t(NB)));
  gpu.synchronize();
  std::vector<uint8_t> y(M * N), yb(M * N);
  std::vector<float> s(M * NB);
  if (M * N != 0) {
    CHECK_CU(cuMemcpyDtoH(y.data(), dy.ptr(), M * N));
    CHECK_CU(cuMemcpyDtoH(yb.data(), dyb.ptr(), M * N));
    CHECK_CU(cuMemcpyDtoH(s.data(), ds.ptr(), M * NB * 4));
  }
  size_t wrongY = 0, wrongBlocks = 0, wrongScales = 0;
  for (size_t i = 0; i < M; ++i)
    for (size_t b = 0; b < NB; ++b) {
      float amax = 0.0f;
      for (size_t j = b * 128; j < std::min(N, b * 128 + 128); ++j)
        amax = std::max(amax, std::fabs(fromBf16(x[i * N + j])));
      float blockScale = amax > 0.0f ? 448.0f / amax : 1.0f;
      float inverse = amax > 0.0f ? amax / 448.0f : 1.0f;
      wrongScales += s[i * NB + b] != inverse;
      for (size_t j = b * 128; j < std::min(N, b * 128 + 128); ++j) {
        float v = fromBf16(x[i * N + j]);
        wrongY += y[i * N + j] != encodeFloat8(true, v * scale);
        wrongBlocks += yb[i * N + j] != encodeFloat8(true, v * blockScale);
      }
    }
  size_t clobbered = clobberedGuardBytes(dy, M * N) + clobberedGuardBytes(dyb, M * N) +
                     clobberedGuardBytes(ds, M * NB * 4);
  bool ok = !wrongY && !wrongBlocks && !wrongScales && !clobbered;
  std::printf("fp8_cast %lldx%lld: %zu per-tensor, %zu per-block codes and %zu scales wrong, %zu "
              "guard bytes written: %s\n",
              (long long)m, (long long)n, wrongY, wrongBlocks, wrongScales, clobbered,
              ok ? "ok" : "FAILED");
  return ok;
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, 257, 1000, 1);
  ok &= runCase(gpu, 33, 128, 2);
  ok &= runCase(gpu, 1, 1, 3);
  ok &= runCase(gpu, 64, 4096, 4);
  std::printf("fp8_cast_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
