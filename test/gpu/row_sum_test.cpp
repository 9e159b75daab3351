// GPU test of kernels/row_sum.tile through its generated launcher: Y[r] = sum
// over c of X[r, c].

#include "GpuTest.h"
#include "row_sum.h"

using namespace tlc::gputest;

/// Runs row_sum on a random \p m x \p n matrix and checks every row sum.
static bool runCase(const GpuContext &gpu, int64_t m, int64_t n, uint32_t seed) {
  size_t rows = static_cast<size_t>(m), cols = static_cast<size_t>(n);
  std::vector<float> x(rows * cols);
  randomFill(x, seed);
  DeviceBuffer dx(x.size() * sizeof(float));
  DeviceBuffer dy((rows + GuardElements) * sizeof(float));
  upload(dx.ptr(), x);
  poison(dy, gpu.stream());

  CHECK_TLC(tlc::row_sum::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  gpu.synchronize();

  std::vector<float> y = download(dy.ptr(), rows);
  std::vector<double> ref(rows, 0.0), magnitude(rows, 0.0);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      double v = static_cast<double>(x[r * cols + c]);
      ref[r] += v;
      magnitude[r] += std::fabs(v);
    }
  }
  // Errors are relative to the sum of |x| (the sum itself may cancel). An f32
  // reduction of random signs stays far below 1e-6 of it; a dropped or doubled
  // element (|x| ~ 0.5 of a row's 0.5 * n) shows up as ~1/n: 1e-5 for n = 1e5.
  Comparison c = compare(y, ref, magnitude, 2e-6);
  char name[96];
  std::snprintf(name, sizeof(name), "row_sum %lldx%lld", static_cast<long long>(m),
                static_cast<long long>(n));
  return report(name, c, y, ref, clobberedGuardBytes(dy, rows * sizeof(float)));
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, 1000, 1111, 21);
  ok &= runCase(gpu, 1, 1, 23);
  ok &= runCase(gpu, 4096, 4096, 25);
  ok &= runCase(gpu, 3, 100000, 27);
  std::printf("row_sum_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
