// GPU test of kernels/transpose.tile: Y = X^T through a strided (transposed) view of X,
// including a leading dimension larger than the row.

#include "GpuTest.h"
#include "transpose.h"

using namespace tlc::gputest;

static bool runCase(const GpuContext &gpu, int64_t m, int64_t n, int64_t ldx, uint32_t seed) {
  size_t M = m, N = n, LD = ldx;
  std::vector<float> x(M * LD);
  randomFill(x, seed);
  DeviceBuffer dx(x.size() * 4), dy((N * M + GuardElements) * 4);
  upload(dx.ptr(), x);
  poison(dy, gpu.stream());
  // XT is [N, M] with strides [1, ldx]; Y is [N, M] dense.
  CHECK_TLC(tlc::transpose::launch(gpu.stream(), dx.ptr(), dy.ptr(), n, m, ldx));
  gpu.synchronize();
  std::vector<float> y = download(dy.ptr(), N * M);
  std::vector<double> ref(N * M), magnitude(N * M, 0.0);
  for (size_t i = 0; i < N; ++i)
    for (size_t j = 0; j < M; ++j)
      ref[i * M + j] = x[j * LD + i];
  Comparison cmp = compare(y, ref, magnitude, 0.0);
  char name[96];
  std::snprintf(name, sizeof(name), "transpose %lldx%lld ld=%lld", (long long)m, (long long)n,
                (long long)ldx);
  return report(name, cmp, y, ref, clobberedGuardBytes(dy, N * M * 4));
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, 1000, 1111, 1111, 41);
  ok &= runCase(gpu, 1, 1, 1, 43);
  ok &= runCase(gpu, 333, 77, 100, 45);
  ok &= runCase(gpu, 2048, 4096, 4096, 47);
  std::printf("transpose_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
