// GPU test of kernels/vector_add.tile through its generated launcher: Z = X +
// Y.

#include "GpuTest.h"
#include "vector_add.h"

using namespace tlc::gputest;

/// Runs vector_add on \p n random elements and checks every output element.
static bool runCase(const GpuContext &gpu, int64_t n, uint32_t seed) {
  size_t count = static_cast<size_t>(n);
  std::vector<float> x(count), y(count);
  randomFill(x, seed);
  randomFill(y, seed + 1);
  DeviceBuffer dx(count * sizeof(float)), dy(count * sizeof(float));
  DeviceBuffer dz((count + GuardElements) * sizeof(float));
  upload(dx.ptr(), x);
  upload(dy.ptr(), y);
  poison(dz, gpu.stream());

  CHECK_TLC(tlc::vector_add::launch(gpu.stream(), dx.ptr(), dy.ptr(), dz.ptr(), n));
  gpu.synchronize();

  std::vector<float> z = download(dz.ptr(), count);
  std::vector<double> ref(count), magnitude(count);
  for (size_t i = 0; i < count; ++i) {
    ref[i] = static_cast<double>(x[i]) + static_cast<double>(y[i]);
    magnitude[i] = std::fabs(static_cast<double>(x[i])) + std::fabs(static_cast<double>(y[i]));
  }
  // One rounding of an f32 sum: 2^-24 of the magnitude at most.
  Comparison c = compare(z, ref, magnitude, 1e-6);
  return report("vector_add N=" + std::to_string(n), c, z, ref,
                clobberedGuardBytes(dz, count * sizeof(float)));
}

int main() {
  GpuContext gpu;
  bool ok = true;
  uint32_t seed = 1;
  for (int64_t n : {int64_t(1), int64_t(1000003), int64_t(1) << 24})
    ok &= runCase(gpu, n, seed += 2);

  // N = 0 launches nothing, returns ok and writes nothing.
  {
    DeviceBuffer guard(GuardElements * sizeof(float));
    poison(guard, gpu.stream());
    tlc::rt::Status s =
        tlc::vector_add::launch(gpu.stream(), guard.ptr(), guard.ptr(), guard.ptr(), 0);
    gpu.synchronize();
    size_t clobbered = clobberedGuardBytes(guard, 0);
    bool pass = s.ok() && clobbered == 0;
    std::printf("%-40s %s  %s\n", "vector_add N=0 (no-op)", pass ? "PASS" : "FAIL",
                s.message().c_str());
    ok &= pass;
  }

  // A negative size is an error, not a launch.
  {
    tlc::rt::Status s = tlc::vector_add::launch(gpu.stream(), 0, 0, 0, -1);
    bool pass = !s.ok() && s.message().find("'N'") != std::string::npos;
    std::printf("%-40s %s  (%s)\n", "vector_add N=-1 (rejected)", pass ? "PASS" : "FAIL",
                s.message().c_str());
    ok &= pass;
  }

  // After unload() the next launch loads the module again.
  tlc::vector_add::unload();
  ok &= runCase(gpu, 4097, 99);

  std::printf("vector_add_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
