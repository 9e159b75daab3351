// example_app_test: a C++ application that ships two tlc kernels (kernels/vector_add.tile and
// kernels/scale_bias_relu.tile, compiled by add_tile_kernel in CMakeLists.txt). It runs both on
// random data, with the outputs poisoned beforehand and guard elements behind them, and checks
// every element against a CPU reference.
//
// Prints PASS and exits 0, or prints FAIL and exits 1. Exits 77 ("SKIP: no CUDA device") when
// cuInit fails or there is no device, as the GPU tests do.

#include "scale_bias_relu.h"
#include "vector_add.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

/// A NaN with a recognizable payload: what the outputs hold before a kernel writes them.
constexpr uint32_t PoisonBits = 0x7fbadbadu;
/// Elements behind each output that no kernel may touch.
constexpr size_t GuardElements = 64;

int failures = 0;

void fail(const char *what) {
  std::printf("  FAIL: %s\n", what);
  ++failures;
}

const char *errorName(CUresult result) {
  const char *name = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    return "unknown CUDA error";
  return name;
}

/// Reports a failed driver call; returns whether it succeeded.
bool check(CUresult result, const char *call) {
  if (result == CUDA_SUCCESS)
    return true;
  std::printf("  FAIL: %s: %s\n", call, errorName(result));
  ++failures;
  return false;
}

/// Reports a failed launch; returns whether it succeeded.
bool check(const tlc::rt::Status &status, const char *what) {
  if (status.ok())
    return true;
  std::printf("  FAIL: %s: %s\n", what, status.message().c_str());
  ++failures;
  return false;
}

uint32_t bitsOf(float f) {
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  return bits;
}

/// Device memory for `count` floats (at least one), freed on scope exit.
class DeviceFloats {
public:
  explicit DeviceFloats(size_t count) : Count(std::max<size_t>(count, 1)) {
    Ok = check(cuMemAlloc(&Ptr, Count * sizeof(float)), "cuMemAlloc");
  }
  ~DeviceFloats() {
    if (Ok)
      (void)cuMemFree(Ptr);
  }
  DeviceFloats(const DeviceFloats &) = delete;
  DeviceFloats &operator=(const DeviceFloats &) = delete;

  bool ok() const { return Ok; }
  CUdeviceptr get() const { return Ptr; }
  bool upload(const std::vector<float> &host) {
    return host.empty() ||
           check(cuMemcpyHtoD(Ptr, host.data(), host.size() * sizeof(float)), "cuMemcpyHtoD");
  }
  bool poison() { return check(cuMemsetD32(Ptr, PoisonBits, Count), "cuMemsetD32"); }
  bool download(std::vector<float> &host, size_t count) {
    host.assign(count, 0.0f);
    return count == 0 ||
           check(cuMemcpyDtoH(host.data(), Ptr, count * sizeof(float)), "cuMemcpyDtoH");
  }

private:
  size_t Count;
  CUdeviceptr Ptr = 0;
  bool Ok = false;
};

std::vector<float> randomFloats(std::mt19937 &rng, size_t count) {
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  std::vector<float> values(count);
  for (float &v : values)
    v = dist(rng);
  return values;
}

/// Checks that the guard elements [count, count + GuardElements) still hold the poison.
bool guardIntact(const std::vector<float> &out, size_t count, const char *kernel) {
  for (size_t i = count; i < count + GuardElements; ++i) {
    if (bitsOf(out[i]) != PoisonBits) {
      std::printf("  FAIL: %s wrote element %zu behind its output of %zu elements\n", kernel, i,
                  count);
      ++failures;
      return false;
    }
  }
  return true;
}

/// Z = X + Y over n elements; IEEE addition, so the result must match exactly.
void testVectorAdd(std::mt19937 &rng, CUstream stream, int64_t n) {
  std::printf("vector_add N=%lld\n", static_cast<long long>(n));
  size_t count = static_cast<size_t>(n);
  std::vector<float> x = randomFloats(rng, count), y = randomFloats(rng, count);
  DeviceFloats dx(count), dy(count), dz(count + GuardElements);
  if (!dx.ok() || !dy.ok() || !dz.ok() || !dx.upload(x) || !dy.upload(y) || !dz.poison())
    return;
  if (!check(example::vector_add::launch(stream, dx.get(), dy.get(), dz.get(), n),
             "vector_add::launch"))
    return;
  if (!check(cuStreamSynchronize(stream), "cuStreamSynchronize"))
    return;
  std::vector<float> z;
  if (!dz.download(z, count + GuardElements))
    return;
  for (size_t i = 0; i < count; ++i) {
    float want = x[i] + y[i];
    if (bitsOf(z[i]) != bitsOf(want)) {
      std::printf("  FAIL: Z[%zu] = %.9g (bits 0x%08x), expected %.9g\n", i, z[i], bitsOf(z[i]),
                  want);
      ++failures;
      return;
    }
  }
  guardIntact(z, count, "vector_add");
}

/// Y[r, c] = max(X[r, c] * scale + bias[c], 0) over an m x n matrix. The GPU may contract the
/// multiply-add into an FMA, so allow a few ulps.
void testScaleBiasRelu(std::mt19937 &rng, CUstream stream, int64_t m, int64_t n, float scale) {
  std::printf("scale_bias_relu M=%lld N=%lld scale=%g\n", static_cast<long long>(m),
              static_cast<long long>(n), scale);
  size_t rows = static_cast<size_t>(m), cols = static_cast<size_t>(n), count = rows * cols;
  std::vector<float> x = randomFloats(rng, count), bias = randomFloats(rng, cols);
  DeviceFloats dx(count), dbias(cols), dy(count + GuardElements);
  if (!dx.ok() || !dbias.ok() || !dy.ok() || !dx.upload(x) || !dbias.upload(bias) || !dy.poison())
    return;
  if (!check(example::scale_bias_relu::launch(stream, dx.get(), dbias.get(), dy.get(), scale, m, n),
             "scale_bias_relu::launch"))
    return;
  if (!check(cuStreamSynchronize(stream), "cuStreamSynchronize"))
    return;
  std::vector<float> y;
  if (!dy.download(y, count + GuardElements))
    return;
  for (size_t r = 0; r < rows; ++r) {
    for (size_t c = 0; c < cols; ++c) {
      size_t i = r * cols + c;
      float want = std::max(x[i] * scale + bias[c], 0.0f);
      float tolerance = 1e-6f * std::max(1.0f, std::fabs(want));
      if (!(std::fabs(y[i] - want) <= tolerance)) { // also catches the NaN poison
        std::printf("  FAIL: Y[%zu, %zu] = %.9g, expected %.9g\n", r, c, y[i], want);
        ++failures;
        return;
      }
    }
  }
  guardIntact(y, count, "scale_bias_relu");
}

/// What the launchers report without launching: a negative size, an empty grid.
void testLaunchErrors(CUstream stream) {
  std::printf("launcher errors\n");
  tlc::rt::Status negative = example::vector_add::launch(stream, 0, 0, 0, -1);
  if (negative.ok() || negative.code() != CUDA_ERROR_INVALID_VALUE ||
      negative.message().find("negative") == std::string::npos)
    fail("vector_add with N = -1 must fail with a 'negative size' error");
  else
    std::printf("  expected error: %s\n", negative.message().c_str());
  tlc::rt::Status empty = example::scale_bias_relu::launch(stream, 0, 0, 0, 1.0f, 0, 7);
  if (!empty.ok())
    fail("scale_bias_relu with M = 0 must launch nothing and succeed");
}

} // namespace

int main() {
  CUresult init = cuInit(0);
  if (init != CUDA_SUCCESS) {
    std::printf("SKIP: no CUDA device (cuInit: %s)\n", errorName(init));
    return 77;
  }
  int devices = 0;
  if (cuDeviceGetCount(&devices) != CUDA_SUCCESS || devices == 0) {
    std::printf("SKIP: no CUDA device\n");
    return 77;
  }
  CUdevice device = 0;
  CUcontext context = nullptr;
  char name[256] = {};
  if (!check(cuDeviceGet(&device, 0), "cuDeviceGet") ||
      !check(cuDeviceGetName(name, sizeof name, device), "cuDeviceGetName") ||
      !check(cuDevicePrimaryCtxRetain(&context, device), "cuDevicePrimaryCtxRetain") ||
      !check(cuCtxSetCurrent(context), "cuCtxSetCurrent")) {
    std::printf("FAIL\n");
    return 1;
  }
  std::printf("example_app_test on %s\n", name);

  // A blocking stream, ordered after the legacy stream's cuMemcpyHtoD and cuMemsetD32 (both
  // may still be running when they return): a non-blocking one would not wait for them.
  CUstream stream = nullptr;
  if (check(cuStreamCreate(&stream, CU_STREAM_DEFAULT), "cuStreamCreate")) {
    std::mt19937 rng(20240601u);
    for (int64_t n : {int64_t(0), int64_t(1), int64_t(2047), int64_t(2048), int64_t(2049),
                      int64_t((1 << 22) + 3)})
      testVectorAdd(rng, stream, n);
    struct Shape {
      int64_t m, n;
      float scale;
    };
    for (Shape s :
         {Shape{1, 1, 2.0f}, Shape{8, 256, 1.5f}, Shape{37, 1000, -0.75f}, Shape{257, 3001, 3.0f}})
      testScaleBiasRelu(rng, stream, s.m, s.n, s.scale);
    testLaunchErrors(stream);

    // unload() drops the modules; the next launch loads them again.
    example::vector_add::unload();
    testVectorAdd(rng, stream, 5000);

    example::vector_add::unload();
    example::scale_bias_relu::unload();
    (void)cuStreamDestroy(stream);
  }
  (void)cuDevicePrimaryCtxRelease(device);

  if (failures) {
    std::printf("FAIL (%d failed checks)\n", failures);
    return 1;
  }
  std::printf("PASS\n");
  return 0;
}
