// GPU test of kernels/u8_scale.tile: u8 tensors and a u8 shared tile (values above 127 check
// the zero extension), Y = f32(X) * scale and Z = 255 - X.

#include "GpuTest.h"
#include "u8_scale.h"

using namespace tlc::gputest;

static bool runCase(const GpuContext &gpu, int64_t n, float scale, uint32_t seed) {
  size_t N = n;
  std::mt19937 gen(seed);
  std::vector<uint8_t> x(N);
  for (uint8_t &v : x)
    v = static_cast<uint8_t>(gen() & 0xFF);
  DeviceBuffer dx(N), dy((N + GuardElements) * 4), dz(N + GuardElements);
  if (N)
    CHECK_CU(cuMemcpyHtoD(dx.ptr(), x.data(), N));
  poison(dy, gpu.stream());
  poison(dz, gpu.stream());
  CHECK_TLC(tlc::u8_scale::launch(gpu.stream(), dx.ptr(), dy.ptr(), dz.ptr(), scale, n));
  gpu.synchronize();
  std::vector<float> y = download(dy.ptr(), N);
  std::vector<uint8_t> z(N);
  if (N)
    CHECK_CU(cuMemcpyDtoH(z.data(), dz.ptr(), N));
  std::vector<double> ref(N), magnitude(N, 0.0);
  size_t wrongZ = 0;
  for (size_t i = 0; i < N; ++i) {
    ref[i] = double(x[i]) * double(scale);
    wrongZ += z[i] != static_cast<uint8_t>(255 - x[i]);
  }
  Comparison cmp = compare(y, ref, magnitude, 1e-6);
  char name[96];
  std::snprintf(name, sizeof(name), "u8_scale N=%lld", (long long)n);
  bool ok = report(name, cmp, y, ref, clobberedGuardBytes(dy, N * 4) + clobberedGuardBytes(dz, N));
  if (wrongZ) {
    std::printf("  %zu bytes of Z wrong (want 255 - x)\n", wrongZ);
    ok = false;
  }
  return ok;
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, 1000003, 1.0f / 255.0f, 71);
  ok &= runCase(gpu, 1, 2.0f, 73);
  ok &= runCase(gpu, 4096, -0.5f, 75);
  std::printf("u8_scale_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
