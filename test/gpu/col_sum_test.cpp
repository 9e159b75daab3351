// GPU test of kernels/col_sum.tile: Y[c] += sum_r X[r, c] with atomic adds from many blocks and
// per-thread local buffers. Y starts from random values (atomics accumulate, so it is not
// poisoned); rows not a multiple of the block's rows exercise the masked loads.

#include "GpuTest.h"
#include "col_sum.h"

using namespace tlc::gputest;

static bool runCase(const GpuContext &gpu, int64_t m, int64_t n, uint32_t seed) {
  size_t M = m, N = n;
  std::vector<float> x(M * N), y0(N);
  randomFill(x, seed);
  randomFill(y0, seed + 1);
  DeviceBuffer dx(x.size() * 4), dy((N + GuardElements) * 4);
  poison(dy, gpu.stream());
  upload(dx.ptr(), x);
  upload(dy.ptr(), y0);
  CHECK_TLC(tlc::col_sum::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  gpu.synchronize();
  std::vector<float> y = download(dy.ptr(), N);
  std::vector<double> ref(N), magnitude(N);
  for (size_t c = 0; c < N; ++c) {
    double s = y0[c], mag = std::fabs(y0[c]);
    for (size_t r = 0; r < M; ++r) {
      s += x[r * N + c];
      mag += std::fabs(x[r * N + c]);
    }
    ref[c] = s;
    magnitude[c] = mag;
  }
  Comparison cmp = compare(y, ref, magnitude, 1e-5);
  char name[96];
  std::snprintf(name, sizeof(name), "col_sum %lldx%lld", (long long)m, (long long)n);
  return report(name, cmp, y, ref, clobberedGuardBytes(dy, N * 4));
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, 1000, 1111, 51);
  ok &= runCase(gpu, 1, 1, 53);
  ok &= runCase(gpu, 4099, 300, 55);
  std::printf("col_sum_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
