// GPU test of test/gpu/kernels/blocked_hazards.tile: fragments in blocked register layouts next
// to tensors written and read by other threads (the barriers tile-assign-blocked-layouts places),
// and rows through a shared tile that cp.async fills (the waits and barriers of
// tile-place-async-waits), bit for bit against the host.

#include "GpuTest.h"
#include "HalfFloat.h"
#include "blocked_hazards.h"

using namespace tlc::gputest;

static bool shiftCase(const GpuContext &gpu, int64_t m, int64_t n, uint32_t seed) {
  size_t M = m, N = n;
  std::vector<float> y(M * N);
  randomFill(y, seed);
  DeviceBuffer dy(y.size() * 4);
  upload(dy.ptr(), y);
  CHECK_TLC(tlc::blocked_hazards::shift_left::launch(gpu.stream(), dy.ptr(), m, n));
  gpu.synchronize();
  std::vector<float> got = download(dy.ptr(), y.size());
  size_t bad = 0;
  for (size_t r = 0; r < M; ++r)
    for (size_t c = 0; c < N; ++c) {
      // Columns 0..255 take their right neighbour (zero past the end: masked loads read 0 and
      // the store at c is in bounds); the rest keep their value.
      float want = c < 256 ? (c + 1 < N ? y[r * N + c + 1] : 0.0f) : y[r * N + c];
      bad += got[r * N + c] != want;
    }
  std::printf("%s shift_left %lldx%lld: %zu wrong\n", bad ? "FAIL" : "PASS", (long long)m,
              (long long)n, bad);
  return bad == 0;
}

static bool reverseCase(const GpuContext &gpu, int64_t m, int64_t n, uint32_t seed) {
  size_t M = m, N = n;
  std::vector<float> x(M * N);
  randomFill(x, seed);
  DeviceBuffer dx(x.size() * 4), dt(x.size() * 4), dz((x.size() + GuardElements) * 4);
  upload(dx.ptr(), x);
  poison(dt, gpu.stream());
  poison(dz, gpu.stream());
  CHECK_TLC(tlc::blocked_hazards::reverse_through::launch(gpu.stream(), dx.ptr(), dt.ptr(),
                                                          dz.ptr(), m, n));
  gpu.synchronize();
  std::vector<float> z = download(dz.ptr(), x.size());
  size_t bad = 0;
  for (size_t r = 0; r < M; ++r)
    for (size_t c = 0; c < std::min<size_t>(N, 256); ++c) {
      size_t from = 255 - c;
      float want = from < N ? 2.0f * x[r * N + from] : 0.0f;
      bad += z[r * N + c] != want;
    }
  bad += clobberedGuardBytes(dz, x.size() * 4);
  std::printf("%s reverse_through %lldx%lld: %zu wrong\n", bad ? "FAIL" : "PASS", (long long)m,
              (long long)n, bad);
  return bad == 0;
}

/// shared_rows: bf16 rows through a shared tile cp.async fills (outside a ring, and refilled in a
/// loop): Y[2b, c] = 2 X[2b, c] + X[2b + 1, c] - 1 and Y[2b + 1, c] = X[2b + 1, c] for c < 512, in
/// f32 as the kernel computes them (rows past M read as zero).
static bool sharedRowsCase(const GpuContext &gpu, int64_t m, int64_t n, uint32_t seed) {
  size_t M = m, N = n;
  std::vector<float> f(M * N);
  randomFill(f, seed);
  std::vector<uint16_t> bits(f.size());
  for (size_t i = 0; i < f.size(); ++i)
    bits[i] = floatToBf16(f[i] * 4.0f);
  DeviceBuffer dx(bits.size() * 2), dy((f.size() + GuardElements) * 4);
  CHECK_CU(cuMemcpyHtoD(dx.ptr(), bits.data(), bits.size() * 2));
  poison(dy, gpu.stream());
  CHECK_TLC(tlc::blocked_hazards::shared_rows::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  gpu.synchronize();
  std::vector<float> y = download(dy.ptr(), f.size());
  auto x = [&](size_t r, size_t c) { return r < M ? bf16ToFloat(bits[r * N + c]) : 0.0f; };
  size_t bad = 0;
  for (size_t r = 0; r < M; r += 2)
    for (size_t c = 0; c < std::min<size_t>(N, 512); ++c) {
      float first = 2.0f * x(r, c) + x(r + 1, c);
      bad += y[r * N + c] != first - 1.0f;
      if (r + 1 < M)
        bad += y[(r + 1) * N + c] != x(r + 1, c);
    }
  bad += clobberedGuardBytes(dy, f.size() * 4);
  std::printf("%s shared_rows %lldx%lld: %zu wrong\n", bad ? "FAIL" : "PASS", (long long)m,
              (long long)n, bad);
  return bad == 0;
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= shiftCase(gpu, 4096, 257, 61);
  ok &= shiftCase(gpu, 37, 300, 63);
  ok &= shiftCase(gpu, 5, 100, 65);
  ok &= reverseCase(gpu, 4096, 256, 67);
  ok &= reverseCase(gpu, 37, 256, 69);
  // Rows of 1024 bytes (whole cp.async chunks), of 600 (not 16-byte aligned: element loads), and
  // longer than the tile; an odd row count.
  ok &= sharedRowsCase(gpu, 4096, 512, 71);
  ok &= sharedRowsCase(gpu, 37, 300, 73);
  ok &= sharedRowsCase(gpu, 9, 1000, 75);
  std::printf("blocked_hazards_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
