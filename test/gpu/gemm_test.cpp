// GPU test of kernels/gemm.tile (bf16 in, f32 accumulation, bf16 out) through its launcher.

#include "GpuTest.h"
#include "gemm.h"

#include <cstring>

using namespace tlc::gputest;

/// C = A @ B for random A (m x k) and B (k x n); checks `checkRows` rows spread over C (all
/// rows when 0) against a double-precision reference on the bf16-rounded inputs.
static bool runCase(const GpuContext &gpu, int64_t m, int64_t n, int64_t k, int64_t checkRows,
                    uint32_t seed) {
  size_t M = m, N = n, K = k;
  std::vector<float> a(M * K), b(K * N);
  randomFill(a, seed);
  randomFill(b, seed + 1);
  std::vector<uint16_t> ah(a.size()), bh(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    a[i] = fromBf16(ah[i] = toBf16(a[i]));
  for (size_t i = 0; i < b.size(); ++i)
    b[i] = fromBf16(bh[i] = toBf16(b[i]));
  DeviceBuffer da(ah.size() * 2), db(bh.size() * 2), dc((M * N + GuardElements) * 2);
  CHECK_CU(cuMemcpyHtoD(da.ptr(), ah.data(), ah.size() * 2));
  CHECK_CU(cuMemcpyHtoD(db.ptr(), bh.data(), bh.size() * 2));
  poison(dc, gpu.stream());

  CHECK_TLC(tlc::gemm::launch(gpu.stream(), da.ptr(), db.ptr(), dc.ptr(), m, k, n));
  gpu.synchronize();

  std::vector<uint16_t> ch(M * N);
  CHECK_CU(cuMemcpyDtoH(ch.data(), dc.ptr(), ch.size() * 2));
  std::vector<size_t> rows;
  size_t step = checkRows ? std::max<size_t>(1, M / checkRows) : 1;
  for (size_t r = 0; r < M; r += step)
    rows.push_back(r);
  if (rows.back() != M - 1)
    rows.push_back(M - 1);
  std::vector<float> got;
  std::vector<double> ref, magnitude;
  for (size_t r : rows) {
    for (size_t c = 0; c < N; ++c) {
      double sum = 0, mag = 0;
      for (size_t i = 0; i < K; ++i) {
        double p = double(a[r * K + i]) * double(b[i * N + c]);
        sum += p;
        mag += std::fabs(p);
      }
      got.push_back(fromBf16(ch[r * N + c]));
      ref.push_back(sum);
      // bf16 output rounding is relative to |C|; accumulated error to sum |a b| / sqrt(K).
      magnitude.push_back(mag / std::sqrt(double(K) + 1));
    }
  }
  Comparison cmp = compare(got, ref, magnitude, 1e-2);
  // An unwritten element reads back as 0xFFFF, a NaN, in the rows checked; check the rest too.
  size_t unwritten = 0;
  for (uint16_t h : ch)
    unwritten += std::isnan(fromBf16(h)) ? 1 : 0;
  char name[96];
  std::snprintf(name, sizeof(name), "gemm bf16 %lldx%lldx%lld%s", (long long)m, (long long)n,
                (long long)k, checkRows ? " (rows sampled)" : "");
  bool ok = report(name, cmp, got, ref, clobberedGuardBytes(dc, M * N * 2));
  if (unwritten) {
    std::printf("  %zu elements of C were not written\n", unwritten);
    ok = false;
  }
  return ok;
}

int main() {
  GpuContext gpu;
  bool ok = true;
  ok &= runCase(gpu, 1000, 1112, 776, 0, 21);
  ok &= runCase(gpu, 1, 1000, 300, 0, 23);
  ok &= runCase(gpu, 257, 129, 65, 0, 25);
  ok &= runCase(gpu, 128, 128, 64, 0, 27);
  ok &= runCase(gpu, 2048, 2048, 2048, 48, 29);
  std::printf("gemm_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
