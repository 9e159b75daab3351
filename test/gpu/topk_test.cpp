// GPU test of kernels/topk.tile: the K largest elements of each row and their columns, against a
// host reference (a stable sort of the columns by key, NaN as +inf and -inf as the lowest finite
// number, ties to the lower column). Rows of random values with repeated values (ties), NaN,
// +-inf, rows shorter than K (-inf and column -1 after N), rows over several tiles (N > BN),
// one column; f32 with K = 8 as shipped, MoE routing (-D K=2 -D BN=256), bf16 sampling
// (-D T=bf16 -D K=50), and the sm_80 build (PTX JIT). Outputs poisoned, guard bytes; values and
// columns must match exactly (the same elements, bit for bit).

#include "GpuTest.h"
#include "topk.h"
#include "topk_bf16_k50.h"
#include "topk_k2.h"
#include "topk_sm_80.h"

#include <algorithm>
#include <cstring>
#include <numeric>

using namespace tlc::gputest;

namespace {
using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t,
                                   int64_t);

struct Build {
  const char *what;
  Launch launch;
  int64_t k;
  bool bf16;
};

/// The kernel's order key of a value.
double keyOf(float v) {
  if (std::isnan(v))
    return INFINITY;
  if (v == -INFINITY)
    return -3.4028234663852886e38;
  return v;
}

bool runCase(const GpuContext &gpu, const Build &build, int64_t m, int64_t n, uint32_t seed) {
  const int64_t k = build.k;
  std::mt19937 gen(seed);
  std::vector<float> x(m * n);
  randomFill(x, seed + 1);
  for (float &v : x) {
    uint32_t r = gen() % 100;
    if (r < 10)
      v = std::round(v * 4) / 4; // repeated values: ties
    else if (r == 10)
      v = NAN;
    else if (r == 11)
      v = INFINITY;
    else if (r == 12)
      v = -INFINITY;
  }
  const size_t elem = build.bf16 ? 2 : 4;
  std::vector<uint8_t> xBytes(x.size() * elem);
  for (size_t i = 0; i < x.size(); ++i) {
    if (build.bf16) {
      uint16_t h = toBf16(x[i]);
      x[i] = fromBf16(h);
      std::memcpy(&xBytes[i * 2], &h, 2);
    } else {
      std::memcpy(&xBytes[i * 4], &x[i], 4);
    }
  }
  DeviceBuffer dx(xBytes.size() + 4), dv((m * k + GuardElements) * elem),
      di((m * k + GuardElements) * 4);
  if (!xBytes.empty())
    CHECK_CU(cuMemcpyHtoD(dx.ptr(), xBytes.data(), xBytes.size()));
  poison(dv, gpu.stream());
  poison(di, gpu.stream());
  CHECK_TLC(build.launch(gpu.stream(), dx.ptr(), dv.ptr(), di.ptr(), m, n));
  gpu.synchronize();
  std::vector<uint8_t> vBytes(m * k * elem);
  std::vector<int32_t> cols(m * k);
  if (m * k) {
    CHECK_CU(cuMemcpyDtoH(vBytes.data(), dv.ptr(), vBytes.size()));
    CHECK_CU(cuMemcpyDtoH(cols.data(), di.ptr(), cols.size() * 4));
  }
  size_t wrong = 0, first = 0;
  std::vector<int64_t> order(n);
  for (int64_t r = 0; r < m; ++r) {
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return keyOf(x[r * n + a]) > keyOf(x[r * n + b]);
    });
    for (int64_t p = 0; p < k; ++p) {
      int64_t want = p < n ? order[p] : -1;
      float wantValue = want >= 0 ? x[r * n + want] : -INFINITY;
      float got;
      if (build.bf16) {
        uint16_t h;
        std::memcpy(&h, &vBytes[(r * k + p) * 2], 2);
        got = fromBf16(h);
      } else {
        std::memcpy(&got, &vBytes[(r * k + p) * 4], 4);
      }
      bool same =
          cols[r * k + p] == want && (std::isnan(wantValue) ? std::isnan(got) : got == wantValue);
      if (!same && wrong++ == 0)
        first = size_t(r * k + p);
    }
  }
  size_t guard = clobberedGuardBytes(dv, m * k * elem) + clobberedGuardBytes(di, m * k * 4);
  std::printf("%s topk %s M=%lld N=%lld K=%lld: %zu wrong", wrong || guard ? "FAIL" : "PASS",
              build.what, (long long)m, (long long)n, (long long)k, wrong);
  if (wrong)
    std::printf(" (first at row %zu, slot %zu: column %d)", first / k, first % k, cols[first]);
  if (guard)
    std::printf(", %zu guard bytes written", guard);
  std::printf("\n");
  return !wrong && !guard;
}
} // namespace

int main() {
  GpuContext gpu;
  const Build builds[] = {{"f32 K=8", tlc::topk::launch, 8, false},
                          {"f32 K=2 BN=256 (MoE routing)", tlc::topk_k2::launch, 2, false},
                          {"bf16 K=50", tlc::topk_bf16_k50::launch, 50, true},
                          {"f32 K=8 sm_80 (PTX JIT)", tlc::topk_sm_80::launch, 8, false}};
  struct Shape {
    int64_t m, n;
  } shapes[] = {{1, 1}, {3, 5}, {7, 64}, {100, 256}, {5, 1000}, {4, 4097}, {2, 50000}, {0, 16}};
  bool ok = true;
  uint32_t seed = 1;
  for (const Build &build : builds)
    for (const Shape &s : shapes)
      ok &= runCase(gpu, build, s.m, s.n, seed += 2);
  std::printf("%s\n", ok ? "ALL PASS" : "SOME FAILED");
  return ok ? 0 : 1;
}
