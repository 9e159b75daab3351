// GPU test of kernels/fp8_gemm.tile: fp8_gemm, C = (A B^T) * SA * SB with 8-bit float A [M, K]
// and B [N, K], bf16 C: each configuration (variant) of the shipped sm_90a kernel, in f8e4m3
// and (kernels/fp8_gemm.tile -D T=f8e5m2) f8e5m2, on ragged shapes (M, N, K not multiples of the
// tiles, M = 1), rows that are not 16-byte aligned (K odd: the entry for tensors TMA cannot
// read) and a base one byte off; plus sm_80's build (PTX JIT) on small tiles: mma.sync on f16
// copies of the 8-bit tiles (tile-widen-gemm-operands).
// fp8_gemm_rowwise (a scale per row of A and of B), and fp8_gemm_blockwise (DeepSeek's scales
// per 1 x 128 block of A and 128 x 128 block of B), on the same shapes. Random codes in [-1, 1]
// (never zero), random positive scales, C poisoned, guard bytes, a double reference.

#include "Float8Reference.h"
#include "GpuTest.h"
#include "fp8_gemm.h"
#include "fp8_gemm_e5m2.h"
#include "fp8_gemm_sm_80.h"

#include <algorithm>
#include <thread>
#include <vector>

using namespace tlc::gputest;

namespace {
using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                   CUdeviceptr, int64_t, int64_t, int64_t);

struct Build {
  const char *what;
  bool e4m3;
  Launch launch;
  /// fp8_gemm_rowwise: SA [M] and SB [N] instead of one scale each.
  bool rowwise = false;
};

/// Random codes of values in [-1, 1], never zero.
std::vector<uint8_t> randomCodes(bool e4m3, size_t count, uint32_t seed) {
  std::vector<float> values(count);
  randomFill(values, seed);
  std::vector<uint8_t> codes(count);
  for (size_t i = 0; i < count; ++i) {
    do {
      codes[i] = encodeFloat8(e4m3, values[i]);
      values[i] *= 2.0f; // a draw that rounds to zero is doubled until it does not
    } while (decodeFloat8(e4m3, codes[i]) == 0.0);
  }
  return codes;
}

using BlockwiseLaunch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                            CUdeviceptr, CUdeviceptr, int64_t, int64_t, int64_t,
                                            int64_t, int64_t);

/// `offset`: bytes between each operand's allocation and its first element. With `blockwise`,
/// fp8_gemm_blockwise's scales (SA [M, KB], SB [NB, KB]); else fp8_gemm's (one each).
bool runCase(const GpuContext &gpu, const Build &build, BlockwiseLaunch blockwise, int64_t m,
             int64_t n, int64_t k, size_t offset, uint32_t seed) {
  std::vector<uint8_t> a = randomCodes(build.e4m3, m * k, seed);
  std::vector<uint8_t> b = randomCodes(build.e4m3, n * k, seed + 1);
  int64_t kb = blockwise ? (k + 127) / 128 : 1, nb = blockwise ? (n + 127) / 128 : 1;
  std::vector<float> sa(build.rowwise ? m : m * kb), sb(build.rowwise ? n : nb * kb);
  if (blockwise || build.rowwise) {
    // Positive scales over two binades, as amax / 448 would give.
    randomFill(sa, seed + 2);
    randomFill(sb, seed + 3);
    for (float &v : sa)
      v = 0.5f + std::fabs(v);
    for (float &v : sb)
      v = 0.5f + std::fabs(v);
  } else {
    sa = {0.75f};
    sb = {1.5f};
  }
  DeviceBuffer da(a.size() + offset + 1), db(b.size() + offset + 1), dsa(sa.size() * 4 + 4),
      dsb(sb.size() * 4 + 4), dc((m * n + GuardElements) * 2);
  if (!a.empty())
    CHECK_CU(cuMemcpyHtoD(da.ptr() + offset, a.data(), a.size()));
  if (!b.empty())
    CHECK_CU(cuMemcpyHtoD(db.ptr() + offset, b.data(), b.size()));
  upload(dsa.ptr(), sa);
  upload(dsb.ptr(), sb);
  poison(dc, gpu.stream());
  if (blockwise)
    CHECK_TLC(blockwise(gpu.stream(), da.ptr() + offset, db.ptr() + offset, dsa.ptr(), dsb.ptr(),
                        dc.ptr(), m, k, n, kb, nb));
  else
    CHECK_TLC(build.launch(gpu.stream(), da.ptr() + offset, db.ptr() + offset, dsa.ptr(), dsb.ptr(),
                           dc.ptr(), m, k, n));
  gpu.synchronize();
  std::vector<uint16_t> c(m * n);
  if (!c.empty())
    CHECK_CU(cuMemcpyDtoH(c.data(), dc.ptr(), c.size() * 2));
  std::vector<double> av(a.size()), bv(b.size());
  for (size_t i = 0; i < a.size(); ++i)
    av[i] = decodeFloat8(build.e4m3, a[i]);
  for (size_t i = 0; i < b.size(); ++i)
    bv[i] = decodeFloat8(build.e4m3, b[i]);
  std::vector<float> got(m * n);
  std::vector<double> ref(m * n), magnitude(m * n);
  // Rows of the reference on every host core (the host product dominates the test's time).
  auto rows = [&](int64_t first, int64_t last) {
    for (int64_t i = first; i < last; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 0, mag = 0;
        // Per 128-wide k block (the scales are positive and constant across one): per-tensor,
        // element 0 of each; row-wise, A's row and B's column; blockwise, A's 1 x 128 and B's
        // 128 x 128 block.
        for (int64_t k0 = 0; k0 < k; k0 += 128) {
          int64_t blk = k0 / 128, end = std::min<int64_t>(k, k0 + 128);
          double scale = build.rowwise ? double(sa[i]) * sb[j]
                                       : double(sa[blockwise ? i * kb + blk : 0]) *
                                             sb[blockwise ? (j / 128) * kb + blk : 0];
          const double *x = &av[i * k], *y = &bv[j * k];
          double part = 0, partMag = 0;
          for (int64_t kk = k0; kk < end; ++kk) {
            double t = x[kk] * y[kk];
            part += t;
            partMag += std::fabs(t);
          }
          sum += part * scale;
          mag += partMag * scale;
        }
        ref[i * n + j] = sum;
        magnitude[i * n + j] = mag;
        got[i * n + j] = fromBf16(c[i * n + j]);
      }
  };
  int64_t workers = std::max<int64_t>(1, std::min<int64_t>(m, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (int64_t w = 0; w < workers; ++w)
    pool.emplace_back(rows, m * w / workers, m * (w + 1) / workers);
  for (std::thread &t : pool)
    t.join();
  // bf16's rounding (2^-8 relative) over the accumulation of exact products: f32 on the generic
  // path; wgmma's fp8 accumulation keeps fewer bits (about 14 are documented), at most K / 32
  // roundings of 2^-14 of the terms' magnitude (1 % at K = 4096, a few 1e-4 typically).
  Comparison cmp = compare(got, ref, magnitude, 1.5e-2);
  char name[160];
  std::snprintf(name, sizeof(name), "fp8_gemm%s %s M=%lld N=%lld K=%lld%s",
                blockwise ? "_blockwise" : "", build.what, (long long)m, (long long)n, (long long)k,
                offset ? " (base +1)" : "");
  return report(name, cmp, got, ref, clobberedGuardBytes(dc, c.size() * 2));
}
} // namespace

int main() {
  GpuContext gpu;
  namespace e4 = tlc::fp8_gemm::fp8_gemm;
  namespace e5 = tlc::fp8_gemm_e5m2::fp8_gemm;
  namespace rw = tlc::fp8_gemm::fp8_gemm_rowwise;
  const Build builds[] = {
      {"e4m3", true, e4::launch},
      {"e4m3 variant0", true, e4::variant0::launch},
      {"e4m3 variant1", true, e4::variant1::launch},
      {"e4m3 variant2", true, e4::variant2::launch},
      {"e4m3 variant3", true, e4::variant3::launch},
      {"e5m2", false, e5::launch},
      {"e5m2 variant3", false, e5::variant3::launch},
      {"sm_80 PTX (f16 copies, mma.sync)", true, tlc::fp8_gemm_sm_80::fp8_gemm::launch},
      {"rowwise e4m3", true, rw::launch, true},
      {"rowwise e4m3 variant0", true, rw::variant0::launch, true},
      {"rowwise e4m3 variant1", true, rw::variant1::launch, true},
      {"rowwise e4m3 variant3", true, rw::variant3::launch, true},
      {"rowwise sm_80 PTX (f16 copies, mma.sync)", true,
       tlc::fp8_gemm_sm_80::fp8_gemm_rowwise::launch, true}};
  struct Shape {
    int64_t m, n, k;
    size_t offset;
  } shapes[] = {{1, 256, 128, 0},     {64, 128, 256, 0},   {128, 256, 1024, 0}, {130, 300, 384, 0},
                {257, 513, 4096, 0},  {300, 1111, 778, 0}, {65, 129, 131, 0},   {3, 1000, 2048, 0},
                {256, 1024, 1024, 0}, {200, 384, 512, 1},  {0, 128, 128, 0}};
  namespace bw = tlc::fp8_gemm::fp8_gemm_blockwise;
  namespace bw80 = tlc::fp8_gemm_sm_80::fp8_gemm_blockwise;
  const std::pair<const char *, BlockwiseLaunch> blockwise[] = {
      {"e4m3", bw::launch},
      {"e4m3 variant0", bw::variant0::launch},
      {"e4m3 variant1", bw::variant1::launch},
      {"sm_80 PTX (f16 copies, mma.sync)", bw80::launch}};
  bool ok = true;
  uint32_t seed = 1;
  for (const Build &build : builds)
    for (const Shape &s : shapes)
      ok &= runCase(gpu, build, nullptr, s.m, s.n, s.k, s.offset, seed += 4);
  for (const auto &[what, launch] : blockwise)
    for (const Shape &s : shapes)
      ok &= runCase(gpu, {what, true, nullptr}, launch, s.m, s.n, s.k, s.offset, seed += 4);
  std::printf("%s\n", ok ? "ALL PASS" : "SOME FAILED");
  return ok ? 0 : 1;
}
