// GPU test of kernels/softmax.tile: row softmax over rows of any length.

#include "GpuTest.h"
#include "softmax.h"

using namespace tlc::gputest;

static bool runCase(const GpuContext &gpu, int64_t m, int64_t n, float scale, uint32_t seed) {
  size_t M = m, N = n;
  std::vector<float> x(M * N);
  randomFill(x, seed);
  for (float &v : x)
    v *= scale;
  DeviceBuffer dx(x.size() * 4), dy((x.size() + GuardElements) * 4);
  upload(dx.ptr(), x);
  poison(dy, gpu.stream());
  CHECK_TLC(tlc::softmax::launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  gpu.synchronize();
  std::vector<float> y = download(dy.ptr(), x.size());
  std::vector<double> ref(x.size()), magnitude(x.size(), 0.0);
  for (size_t r = 0; r < M; ++r) {
    double mx = -INFINITY, sum = 0;
    for (size_t c = 0; c < N; ++c)
      mx = std::max(mx, double(x[r * N + c]));
    for (size_t c = 0; c < N; ++c)
      sum += std::exp(double(x[r * N + c]) - mx);
    for (size_t c = 0; c < N; ++c)
      ref[r * N + c] = std::exp(double(x[r * N + c]) - mx) / sum;
  }
  Comparison cmp = compare(y, ref, magnitude, 1e-5);
  char name[96];
  std::snprintf(name, sizeof(name), "softmax %lldx%lld scale=%g", (long long)m, (long long)n,
                double(scale));
  return report(name, cmp, y, ref, clobberedGuardBytes(dy, x.size() * 4));
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, 1000, 1111, 4.0f, 31);
  ok &= runCase(gpu, 1, 1, 1.0f, 33);
  ok &= runCase(gpu, 37, 256, 10.0f, 35);
  ok &= runCase(gpu, 3, 5000, 30.0f, 37);
  ok &= runCase(gpu, 4096, 1024, 2.0f, 39);
  std::printf("softmax_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
