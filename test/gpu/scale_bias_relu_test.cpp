// GPU test of kernels/scale_bias_relu.tile through its generated launcher: Y =
// max(X * scale + bias, 0).

#include "GpuTest.h"
#include "scale_bias_relu.h"

using namespace tlc::gputest;

/// Runs scale_bias_relu on a random \p m x \p n matrix and checks every output
/// element.
static bool runCase(const GpuContext &gpu, int64_t m, int64_t n, float scale, uint32_t seed) {
  size_t rows = static_cast<size_t>(m), cols = static_cast<size_t>(n), count = rows * cols;
  std::vector<float> x(count), bias(cols);
  randomFill(x, seed);
  randomFill(bias, seed + 1);
  DeviceBuffer dx(count * sizeof(float)), dbias(cols * sizeof(float));
  DeviceBuffer dy((count + GuardElements) * sizeof(float));
  upload(dx.ptr(), x);
  upload(dbias.ptr(), bias);
  poison(dy, gpu.stream());

  CHECK_TLC(
      tlc::scale_bias_relu::launch(gpu.stream(), dx.ptr(), dbias.ptr(), dy.ptr(), scale, m, n));
  gpu.synchronize();

  std::vector<float> y = download(dy.ptr(), count);
  std::vector<double> ref(count), magnitude(count);
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      size_t i = r * cols + c;
      double xs = static_cast<double>(x[i]) * static_cast<double>(scale);
      double b = static_cast<double>(bias[c]);
      ref[i] = std::max(xs + b, 0.0);
      magnitude[i] = std::fabs(xs) + std::fabs(b);
    }
  }
  // A multiply and an add (or one fma) in f32.
  Comparison c = compare(y, ref, magnitude, 1e-6);
  char name[96];
  std::snprintf(name, sizeof(name), "scale_bias_relu %lldx%lld scale=%g", static_cast<long long>(m),
                static_cast<long long>(n), static_cast<double>(scale));
  return report(name, c, y, ref, clobberedGuardBytes(dy, count * sizeof(float)));
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, 1000, 1111, 1.75f, 11);
  ok &= runCase(gpu, 1, 1, -0.5f, 13);
  ok &= runCase(gpu, 4096, 4096, 0.625f, 15);
  ok &= runCase(gpu, 37, 1, 3.0f, 17);
  std::printf("scale_bias_relu_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
