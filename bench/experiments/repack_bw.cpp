// Experiment (not built by CMake): bandwidth of the launch-time repack copy (issue 11) for
// tile shapes and copy styles, against cuMemcpy2DAsync on the same data, and the cost of the
// stream-ordered workspace allocation. Build on this machine:
//   tlc bench/experiments/repack_variants.tile -o <dir>/rv
//   g++ -O2 -std=c++17 -Iinclude -Itest/gpu -I<dir> -I/usr/local/cuda/include \
//     bench/experiments/repack_bw.cpp <dir>/rv.cpp lib/Runtime/Runtime.cpp \
//     -L/usr/local/cuda/lib64/stubs -lcuda -pthread -o repack_bw
// Each line: rows x cols, the source's row stride and base offset (elements), the copy's median
// time and its bandwidth (read + write of rows * cols * 2 bytes).
#include "GpuTest.h"
#include "rv.h"

#include <cstdio>

using namespace tlc::gputest;

int main() {
  GpuContext gpu;
  struct Shape {
    int64_t rows, cols, stride, offset;
  };
  const Shape shapes[] = {{4096, 4096, 4096, 0}, {4096, 4095, 4095, 0}, {4096, 4096, 4096, 1},
                          {8192, 8191, 8191, 0}, {2048, 2049, 2049, 0}, {2049, 2047, 2047, 0}};
  for (const Shape &s : shapes) {
    DeviceBuffer src((s.rows * s.stride + s.offset) * 2);
    int64_t ld = (s.cols + 63) / 64 * 64;
    DeviceBuffer dst(s.rows * ld * 2);
    randomBf16(src, s.rows * s.stride + s.offset, 7);
    CUdeviceptr S = src.ptr() + 2 * s.offset;
    double bytes = 2.0 * s.rows * s.cols * 2;
    auto report = [&](const char *what, double ms) {
      std::printf("REPACK %lldx%lld stride=%lld offset=%lld %-10s %.4f ms %.2f TB/s\n",
                  (long long)s.rows, (long long)s.cols, (long long)s.stride, (long long)s.offset,
                  what, ms, bytes / (ms * 1e-3) / 1e12);
    };
#define VARIANT(name)                                                                              \
  report(#name, medianMs(gpu, 3, 21, [&] {                                                         \
           CHECK_TLC(tlc::rv::name::launch(gpu.stream(), S, dst.ptr(), s.rows, s.cols, s.stride,   \
                                           1, ld));                                                \
         }));
    VARIANT(r8x256)
    VARIANT(r16x256)
    VARIANT(r8x512)
    VARIANT(r32x256)
    VARIANT(e4x256)
    report("memcpy2d", medianMs(gpu, 3, 21, [&] {
             CUDA_MEMCPY2D c = {};
             c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
             c.srcDevice = S;
             c.srcPitch = s.stride * 2;
             c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
             c.dstDevice = dst.ptr();
             c.dstPitch = ld * 2;
             c.WidthInBytes = s.cols * 2;
             c.Height = s.rows;
             CHECK_CU(cuMemcpy2DAsync(&c, gpu.stream()));
           }));
    // The workspace alone: allocate and free on the stream (after the first, from the pool).
    report("alloc+free", medianMs(gpu, 3, 21, [&] {
             tlc::rt::Workspace w;
             bool available = false;
             CHECK_TLC(w.allocate(s.rows * ld * 2, gpu.stream(), &available));
             if (!available)
               std::printf("no workspace\n");
           }));
  }
  return 0;
}
