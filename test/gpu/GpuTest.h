// Shared helpers for the GPU test programs: checked driver calls, device
// buffers, inputs, comparison.

#ifndef TLC_TEST_GPU_GPUTEST_H
#define TLC_TEST_GPU_GPUTEST_H

#include "HalfFloat.h"
#include "tlc/Runtime/Runtime.h"

#include <cuda.h>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

/// Checks a CUDA driver call; on failure prints file:line, the call and the
/// error's name and exits with 1.
#define CHECK_CU(call)                                                                             \
  do {                                                                                             \
    CUresult checkCuResult = (call);                                                               \
    if (checkCuResult != CUDA_SUCCESS)                                                             \
      ::tlc::gputest::failCuda(__FILE__, __LINE__, #call, checkCuResult);                          \
  } while (0)

/// Checks a tlc::rt::Status; on failure prints file:line and its message and
/// exits with 1.
#define CHECK_TLC(expr)                                                                            \
  do {                                                                                             \
    ::tlc::rt::Status checkTlcStatus = (expr);                                                     \
    if (!checkTlcStatus.ok()) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #expr,                           \
                   checkTlcStatus.message().c_str());                                              \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace tlc::gputest {

/// The exit code that tells the test driver a test was skipped.
constexpr int SkipExitCode = 77;

[[noreturn]] inline void failCuda(const char *file, int line, const char *call, CUresult result) {
  const char *name = nullptr;
  if (cuGetErrorName(result, &name) != CUDA_SUCCESS || !name)
    name = "unknown CUresult";
  std::fprintf(stderr, "%s:%d: %s failed: %s (%d)\n", file, line, call, name,
               static_cast<int>(result));
  std::exit(1);
}

/// Exits with 77 ("SKIP: no CUDA device") when the driver cannot be
/// initialized or has no device.
inline void skipIfNoGpu() {
  int count = 0;
  if (cuInit(0) != CUDA_SUCCESS || cuDeviceGetCount(&count) != CUDA_SUCCESS || count == 0) {
    std::printf("SKIP: no CUDA device\n");
    std::exit(SkipExitCode);
  }
}

/// Device 0's primary context, current on this thread, and a stream.
class GpuContext {
public:
  GpuContext() {
    skipIfNoGpu();
    CHECK_CU(cuDeviceGet(&Device, 0));
    CHECK_CU(cuDevicePrimaryCtxRetain(&Context, Device));
    CHECK_CU(cuCtxSetCurrent(Context));
    // A blocking stream: it waits for the legacy stream's work. cuMemcpyHtoD from pageable
    // memory returns once the data is staged, before its DMA ends, and cuMemsetD32 returns
    // at once; both run on the legacy stream, which a CU_STREAM_NON_BLOCKING stream does not
    // wait for (a kernel read stale inputs or had its output poisoned after it, seen on the
    // H100 with three test programs at once).
    CHECK_CU(cuStreamCreate(&Stream, CU_STREAM_DEFAULT));
    char name[256] = {};
    CHECK_CU(cuDeviceGetName(name, sizeof(name) - 1, Device));
    std::printf("device 0: %s\n", name);
  }
  ~GpuContext() {
    cuStreamDestroy(Stream);
    cuCtxSetCurrent(nullptr);
    cuDevicePrimaryCtxRelease(Device);
  }
  GpuContext(const GpuContext &) = delete;
  GpuContext &operator=(const GpuContext &) = delete;

  CUstream stream() const { return Stream; }
  void synchronize() const { CHECK_CU(cuStreamSynchronize(Stream)); }

private:
  CUdevice Device = 0;
  CUcontext Context = nullptr;
  CUstream Stream = nullptr;
};

/// A device allocation of a number of bytes (at least 1, so that a size of 0
/// still yields a valid pointer).
class DeviceBuffer {
public:
  explicit DeviceBuffer(size_t bytes) : Bytes(bytes) {
    CHECK_CU(cuMemAlloc(&Ptr, std::max<size_t>(bytes, 1)));
  }
  ~DeviceBuffer() {
    if (Ptr)
      cuMemFree(Ptr);
  }
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;
  DeviceBuffer(DeviceBuffer &&other) noexcept : Ptr(other.Ptr), Bytes(other.Bytes) {
    other.Ptr = 0;
  }

  CUdeviceptr ptr() const { return Ptr; }
  size_t bytes() const { return Bytes; }

private:
  CUdeviceptr Ptr = 0;
  size_t Bytes;
};

/// Fills \p values with numbers drawn uniformly from [-1, 1] by a
/// std::mt19937 seeded with \p seed: deterministic, and never zero (a zero
/// draw is redrawn), so no input is all zeros.
inline void randomFill(std::vector<float> &values, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1.0f, 1.0f);
  for (float &v : values) {
    do
      v = dist(gen);
    while (v == 0.0f);
  }
}

inline void upload(CUdeviceptr dst, const std::vector<float> &src) {
  if (!src.empty())
    CHECK_CU(cuMemcpyHtoD(dst, src.data(), src.size() * sizeof(float)));
}

inline std::vector<float> download(CUdeviceptr src, size_t count) {
  std::vector<float> out(count);
  if (count)
    CHECK_CU(cuMemcpyDtoH(out.data(), src, count * sizeof(float)));
  return out;
}

/// Fills \p bytes bytes at \p ptr with 0xFF: every float reads as a NaN, so
/// an element the kernel does not write fails the comparison.
inline void poison(const DeviceBuffer &buffer, CUstream stream) {
  CHECK_CU(cuMemsetD8Async(buffer.ptr(), 0xFF, std::max<size_t>(buffer.bytes(), 1), stream));
  CHECK_CU(cuStreamSynchronize(stream));
}

/// Number of bytes after \p offset in \p buffer that are no longer 0xFF, i.e.
/// were written by an out-of-bounds store.
inline size_t clobberedGuardBytes(const DeviceBuffer &buffer, size_t offset) {
  if (offset >= buffer.bytes())
    return 0;
  std::vector<unsigned char> guard(buffer.bytes() - offset);
  CHECK_CU(cuMemcpyDtoH(guard.data(), buffer.ptr() + offset, guard.size()));
  return static_cast<size_t>(
      std::count_if(guard.begin(), guard.end(), [](unsigned char b) { return b != 0xFF; }));
}

/// Elements of guard space allocated after every output.
constexpr size_t GuardElements = 4096;

/// The result of comparing a kernel's output with the reference.
struct Comparison {
  /// max over elements of |got - ref| / max(|ref|, magnitude).
  double maxRelError = 0;
  size_t worstIndex = 0;
  /// Elements that are NaN or infinite (unwritten: still poisoned).
  size_t nonFinite = 0;
  size_t firstNonFinite = 0;
  /// Elements over the tolerance.
  size_t overTolerance = 0;
  bool pass = true;
};

/// Compares \p got with the double-precision reference \p ref. \p magnitude
/// gives per element the scale of the terms that produced it (e.g. the sum
/// of |x| for a sum), so cancellation does not inflate the error; the error
/// of element i is |got - ref| / max(|ref|, magnitude[i], tiny). Fails on any
/// non-finite element and on any error above \p tolerance.
inline Comparison compare(const std::vector<float> &got, const std::vector<double> &ref,
                          const std::vector<double> &magnitude, double tolerance) {
  Comparison c;
  if (got.size() != ref.size() || ref.size() != magnitude.size()) {
    c.pass = false;
    return c;
  }
  for (size_t i = 0; i < got.size(); ++i) {
    if (!std::isfinite(got[i])) {
      if (c.nonFinite++ == 0)
        c.firstNonFinite = i;
      continue;
    }
    double scale = std::max({std::fabs(ref[i]), magnitude[i], 1e-30});
    double err = std::fabs(static_cast<double>(got[i]) - ref[i]) / scale;
    if (err > tolerance)
      ++c.overTolerance;
    if (err > c.maxRelError) {
      c.maxRelError = err;
      c.worstIndex = i;
    }
  }
  c.pass = c.nonFinite == 0 && c.overTolerance == 0;
  return c;
}

/// Prints the one-line verdict of a case and returns whether it passed.
/// \p guardBytes is the number of clobbered guard bytes (must be 0).
inline bool report(const std::string &name, const Comparison &c, const std::vector<float> &got,
                   const std::vector<double> &ref, size_t guardBytes) {
  bool pass = c.pass && guardBytes == 0;
  std::printf("%-40s max rel err %.3e  %s", name.c_str(), c.maxRelError, pass ? "PASS" : "FAIL");
  if (c.nonFinite)
    std::printf("  (%zu non-finite/unwritten elements, first at %zu)", c.nonFinite,
                c.firstNonFinite);
  if (c.overTolerance)
    std::printf("  (%zu over tolerance; worst at %zu: got %.9g, want %.9g)", c.overTolerance,
                c.worstIndex, static_cast<double>(got[c.worstIndex]), ref[c.worstIndex]);
  if (guardBytes)
    std::printf("  (%zu bytes written past the end of the output)", guardBytes);
  if (got.size() != ref.size())
    std::printf("  (size mismatch: %zu vs %zu)", got.size(), ref.size());
  std::printf("\n");
  std::fflush(stdout);
  return pass;
}

/// Times \p launch (which enqueues one operation on the stream) \p timed times after
/// \p warmUps warm-ups, each between its own pair of events, and returns the median in
/// milliseconds.
template <typename Launch>
double medianMs(const GpuContext &gpu, int warmUps, int timed, Launch launch) {
  for (int i = 0; i < warmUps; ++i)
    launch();
  gpu.synchronize();
  std::vector<CUevent> start(timed), stop(timed);
  for (int i = 0; i < timed; ++i) {
    CHECK_CU(cuEventCreate(&start[i], CU_EVENT_DEFAULT));
    CHECK_CU(cuEventCreate(&stop[i], CU_EVENT_DEFAULT));
  }
  for (int i = 0; i < timed; ++i) {
    CHECK_CU(cuEventRecord(start[i], gpu.stream()));
    launch();
    CHECK_CU(cuEventRecord(stop[i], gpu.stream()));
  }
  CHECK_CU(cuEventSynchronize(stop[timed - 1]));
  std::vector<double> ms(timed);
  for (int i = 0; i < timed; ++i) {
    float t = 0;
    CHECK_CU(cuEventElapsedTime(&t, start[i], stop[i]));
    ms[i] = t;
    CHECK_CU(cuEventDestroy(start[i]));
    CHECK_CU(cuEventDestroy(stop[i]));
  }
  std::sort(ms.begin(), ms.end());
  return timed % 2 ? ms[timed / 2] : (ms[timed / 2 - 1] + ms[timed / 2]) / 2;
}

/// The conversions of HalfFloat.h under the names the tests use.
inline uint16_t toBf16(float f) { return floatToBf16(f); }
inline float fromBf16(uint16_t h) { return bf16ToFloat(h); }
inline uint16_t toF16(float f) { return floatToF16(f); }
inline float fromF16(uint16_t h) { return f16ToFloat(h); }

/// Fills \p buffer with \p count random bf16 values in [-1, 1] (never zero).
inline void randomBf16(const DeviceBuffer &buffer, size_t count, uint32_t seed) {
  std::vector<float> f(count);
  randomFill(f, seed);
  std::vector<uint16_t> h(count);
  for (size_t i = 0; i < count; ++i)
    h[i] = toBf16(f[i]);
  CHECK_CU(cuMemcpyHtoD(buffer.ptr(), h.data(), count * 2));
}

} // namespace tlc::gputest

#endif // TLC_TEST_GPU_GPUTEST_H
