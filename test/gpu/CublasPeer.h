//===- CublasPeer.h - cuBLAS as the peer of the GEMM benchmarks -----------===//
//
// What the benchmarks that time tlc against cuBLAS in one process share: a checked cuBLAS call,
// the interleaved timing of the two launches, and a row-major GEMM on cuBLAS's column-major
// interface.
//
//===----------------------------------------------------------------------===//
#ifndef TLC_TEST_GPU_CUBLASPEER_H
#define TLC_TEST_GPU_CUBLASPEER_H

#include "GpuTest.h"

#include <cublas_v2.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>
#include <vector>

#define CHECK_CUBLAS(expr)                                                                         \
  do {                                                                                             \
    cublasStatus_t status_ = (expr);                                                               \
    if (status_ != CUBLAS_STATUS_SUCCESS) {                                                        \
      std::fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__, __LINE__, #expr, int(status_));     \
      std::exit(1);                                                                                \
    }                                                                                              \
  } while (0)

namespace tlc::gputest {

/// Medians (ms) of `rounds` rounds, each timing tlc's launch then the peer's (2 warm-ups and 5
/// timed launches per round): interleaved, so that both see the same clocks.
template <typename A, typename B>
std::pair<double, double> interleaved(const GpuContext &gpu, int rounds, A tlcLaunch,
                                      B peerLaunch) {
  std::vector<double> t, p;
  for (int r = 0; r < rounds; ++r) {
    t.push_back(medianMs(gpu, 2, 5, tlcLaunch));
    p.push_back(medianMs(gpu, 2, 5, peerLaunch));
  }
  std::sort(t.begin(), t.end());
  std::sort(p.begin(), p.end());
  return {t[t.size() / 2], p[p.size() / 2]};
}

/// Row-major C [m, n] = A [m, k] B [k, n] (leading dimensions k, n, n) of `type`, f32 compute:
/// cuBLAS's column-major C^T = B^T A^T.
inline void cublasRowMajorGemm(cublasHandle_t handle, int64_t m, int64_t n, int64_t k,
                               CUdeviceptr a, CUdeviceptr b, CUdeviceptr c, cudaDataType type) {
  float one = 1.0f, zero = 0.0f;
  CHECK_CUBLAS(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(m), int(k), &one,
                            reinterpret_cast<void *>(b), type, int(n), reinterpret_cast<void *>(a),
                            type, int(k), &zero, reinterpret_cast<void *>(c), type, int(n),
                            CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
}

} // namespace tlc::gputest

#endif // TLC_TEST_GPU_CUBLASPEER_H
