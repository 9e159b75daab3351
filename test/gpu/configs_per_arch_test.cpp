// GPU test of configurations left out of an architecture's image
// (test/gpu/kernels/configs_per_arch.tile): configuration 0 fits only sm_90a's shared memory.
// Built for sm_90a and sm_80 (namespace tlc::configs_per_arch), the H200 loads the sm_90a
// cubin, which has every configuration; built for sm_80 only (tlc::configs_per_arch_sm80), it
// JIT-compiles the sm_80 PTX, whose image lacks configuration 0: launch() and select() must
// choose among the others, even where configuration 0's `when` condition holds.

#include "GpuTest.h"
#include "configs_per_arch.h"
#include "configs_per_arch_sm80.h"

using namespace tlc::gputest;

namespace {

/// One build's launcher functions.
struct Build {
  const char *name;
  tlc::rt::Status (*launch)(CUstream, CUdeviceptr, CUdeviceptr, int64_t, int64_t);
  int (*select)(int64_t, int64_t);
  int (*selectFor)(int, int64_t, int64_t);
  tlc::rt::Status (*launchVariant0)(CUstream, CUdeviceptr, CUdeviceptr, int64_t, int64_t);
  /// Whether the image the driver loads on this device has configuration 0.
  bool hasVariant0;
};

/// Copies a random \p m x \p n matrix with \p build; checks Y == X, the guard bytes, and the
/// variant select() reports against the one expected.
bool runCase(const GpuContext &gpu, const Build &build, int64_t m, int64_t n, uint32_t seed) {
  size_t count = static_cast<size_t>(m * n);
  std::vector<float> x(count);
  randomFill(x, seed);
  DeviceBuffer dx(count * sizeof(float));
  DeviceBuffer dy((count + GuardElements) * sizeof(float));
  upload(dx.ptr(), x);
  poison(dy, gpu.stream());
  CHECK_TLC(build.launch(gpu.stream(), dx.ptr(), dy.ptr(), m, n));
  gpu.synchronize();
  std::vector<float> y = download(dy.ptr(), count);
  std::vector<double> ref(x.begin(), x.end()), magnitude(count, 1.0);
  Comparison c = compare(y, ref, magnitude, 0.0);
  char name[128];
  std::snprintf(name, sizeof(name), "%s %lldx%lld", build.name, static_cast<long long>(m),
                static_cast<long long>(n));
  bool ok = report(name, c, y, ref, clobberedGuardBytes(dy, count * sizeof(float)));

  // The conditions prefer 0 where N > 1000 and 1 where 100 < N <= 1000; 2 otherwise, and
  // where N > 1000 in an image without 0 (no condition holds there).
  int expected = n > 1000 ? (build.hasVariant0 ? 0 : 2) : n > 100 ? 1 : 2;
  int chosen = build.select(m, n);
  // select_for assumes every configuration is in the image.
  int assumed = build.selectFor(132, m, n);
  int assumedExpected = n > 1000 ? 0 : n > 100 ? 1 : 2;
  if (chosen != expected || assumed != assumedExpected) {
    std::printf("%s: select() = %d (expected %d), select_for(132) = %d (expected %d)\n", name,
                chosen, expected, assumed, assumedExpected);
    ok = false;
  }
  return ok;
}

} // namespace

int main() {
  GpuContext gpu;
  CUdevice device = 0;
  CHECK_CU(cuCtxGetDevice(&device));
  int major = 0, minor = 0;
  CHECK_CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device));
  CHECK_CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device));
  namespace both = tlc::configs_per_arch::copy_rows;
  namespace sm80 = tlc::configs_per_arch_sm80::copy_rows;
  const Build builds[] = {
      {"sm_90a+sm_80", both::launch, both::select, both::select_for, both::variant0::launch,
       major == 9 && minor == 0},
      {"sm_80", sm80::launch, sm80::select, sm80::select_for, sm80::variant0::launch, false},
  };
  bool ok = true;
  for (const Build &build : builds) {
    ok &= runCase(gpu, build, 1000, 1500, 31); // ragged: 1500 = 23.4 tiles of 64
    ok &= runCase(gpu, build, 777, 333, 33);
    ok &= runCase(gpu, build, 129, 77, 35);
    ok &= runCase(gpu, build, 1, 1, 37);
    // Asked for by name, a configuration the image lacks is an error, not a launch.
    DeviceBuffer dx(64 * 64 * sizeof(float)), dy(64 * 64 * sizeof(float));
    tlc::rt::Status s = build.launchVariant0(gpu.stream(), dx.ptr(), dy.ptr(), 64, 64);
    gpu.synchronize();
    if (s.ok() != build.hasVariant0) {
      std::printf("%s: variant0::launch: %s (expected %s)\n", build.name,
                  s.ok() ? "ok" : s.message().c_str(), build.hasVariant0 ? "ok" : "an error");
      ok = false;
    }
  }
  std::printf("configs_per_arch_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
