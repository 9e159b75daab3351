// GPU test of kernels/attention_decode.tile (flash-decoding: split over the keys, then a
// combine) against a double-precision host reference: GQA groups of 1, 4 and 8 query heads per
// K/V head, 1 to 3 query rows per head (R = GROUP x rows up to 24: two row tiles), key counts that
// are not multiples of the key block (1, 1000, 4097), more splits than key blocks (empty splits),
// and the sm_80 build (compute_80 PTX, JIT-compiled by the driver). Outputs are poisoned first; the
// scratch tensors are poisoned too (every split writes its rows). The paged split
// (attention_decode_paged_split) reads the same keys and values from a cache of 64-token pages in
// a shuffled order, each sequence with its own length (37 fewer keys per batch entry, 0 at least).

#include "GpuTest.h"
#include "attention_decode.h"
#include "attention_decode_sm_80.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

using namespace tlc::gputest;

namespace {
int failures = 0;

constexpr int64_t Page = 64; // attention_decode_paged_split's PAGE

/// The paged cache [pages, Page, hkv, d] holding `kh` ([b, hkv, s, d]) in shuffled pages, and
/// the page table [b, maxPages].
void buildPagedCache(const std::vector<uint16_t> &kh, int64_t b, int64_t hkv, int64_t s, int64_t d,
                     uint32_t seed, std::vector<uint16_t> &cache, std::vector<int32_t> &table) {
  int64_t maxPages = std::max<int64_t>((s + Page - 1) / Page, 1), pages = b * maxPages;
  std::vector<int32_t> order(pages);
  for (int64_t i = 0; i < pages; ++i)
    order[i] = int32_t(i);
  std::mt19937 gen(seed);
  std::shuffle(order.begin(), order.end(), gen);
  table.assign(order.begin(), order.end());
  cache.assign(size_t(pages * Page * hkv * d), 0);
  for (int64_t bb = 0; bb < b; ++bb)
    for (int64_t kv = 0; kv < hkv; ++kv)
      for (int64_t t = 0; t < s; ++t) {
        int64_t phys = int64_t(table[bb * maxPages + t / Page]) * Page + t % Page;
        std::copy_n(&kh[size_t(((bb * hkv + kv) * s + t) * d)], d,
                    &cache[size_t((phys * hkv + kv) * d)]);
      }
}

void runCase(const GpuContext &gpu, bool sm80, int64_t b, int64_t hkv, int64_t group,
             int64_t rowsPerHead, int64_t s, int64_t ns, uint32_t seed, bool paged = false) {
  const int64_t d = 128, r = group * rowsPerHead;
  size_t nq = size_t(b * hkv * r * d), nkv = size_t(b * hkv * s * d);
  std::vector<float> q(nq), k(nkv), v(nkv);
  randomFill(q, seed);
  randomFill(k, seed + 1);
  randomFill(v, seed + 2);
  std::vector<uint16_t> qh(nq), kh(nkv), vh(nkv);
  for (size_t i = 0; i < nq; ++i)
    q[i] = fromBf16(qh[i] = toBf16(q[i] * 2.0f));
  for (size_t i = 0; i < nkv; ++i) {
    k[i] = fromBf16(kh[i] = toBf16(k[i] * 2.0f));
    v[i] = fromBf16(vh[i] = toBf16(v[i]));
  }
  DeviceBuffer dq(nq * 2), dk(nkv * 2 + 2), dv(nkv * 2 + 2), dout((nq + GuardElements) * 2),
      dop(size_t(b * hkv * ns * r * d) * 4), dlse(size_t(b * hkv * ns * r) * 4);
  CHECK_CU(cuMemcpyHtoD(dq.ptr(), qh.data(), nq * 2));
  if (nkv) {
    CHECK_CU(cuMemcpyHtoD(dk.ptr(), kh.data(), nkv * 2));
    CHECK_CU(cuMemcpyHtoD(dv.ptr(), vh.data(), nkv * 2));
  }
  poison(dout, gpu.stream());
  CHECK_CU(cuMemsetD32(dop.ptr(), 0x7fc00000, size_t(b * hkv * ns * r * d)));
  CHECK_CU(cuMemsetD32(dlse.ptr(), 0x7fc00000, size_t(b * hkv * ns * r)));
  double softmaxScale = 1.0 / std::sqrt(double(d));
  float scale = float(softmaxScale * 1.4426950408889634);
  // Paged: each sequence's own key count.
  auto keysOf = [&](int64_t bb) { return paged ? std::max<int64_t>(s - 37 * bb, 0) : s; };
  if (paged) {
    std::vector<uint16_t> kc, vc;
    std::vector<int32_t> table, lens(b);
    buildPagedCache(kh, b, hkv, s, d, seed, kc, table);
    buildPagedCache(vh, b, hkv, s, d, seed, vc, table);
    for (int64_t bb = 0; bb < b; ++bb)
      lens[bb] = int32_t(keysOf(bb));
    int64_t maxPages = int64_t(table.size()) / b, tk = int64_t(kc.size()) / (hkv * d);
    DeviceBuffer dkc(kc.size() * 2), dvc(vc.size() * 2), dtable(table.size() * 4), dlens(b * 4);
    CHECK_CU(cuMemcpyHtoD(dkc.ptr(), kc.data(), kc.size() * 2));
    CHECK_CU(cuMemcpyHtoD(dvc.ptr(), vc.data(), vc.size() * 2));
    CHECK_CU(cuMemcpyHtoD(dtable.ptr(), table.data(), table.size() * 4));
    CHECK_CU(cuMemcpyHtoD(dlens.ptr(), lens.data(), lens.size() * 4));
    auto split = sm80 ? tlc::attention_decode_sm_80::attention_decode_paged_split::launch
                      : tlc::attention_decode::attention_decode_paged_split::launch;
    auto combine = sm80 ? tlc::attention_decode_sm_80::attention_decode_combine::launch
                        : tlc::attention_decode::attention_decode_combine::launch;
    CHECK_TLC(split(gpu.stream(), dq.ptr(), dkc.ptr(), dvc.ptr(), dtable.ptr(), dlens.ptr(),
                    dop.ptr(), dlse.ptr(), scale, b, hkv, r, tk, hkv * d, maxPages, ns));
    CHECK_TLC(combine(gpu.stream(), dop.ptr(), dlse.ptr(), dout.ptr(), b, hkv, ns, r));
    gpu.synchronize();
  } else if (sm80) {
    CHECK_TLC(tlc::attention_decode_sm_80::attention_decode_split::launch(
        gpu.stream(), dq.ptr(), dk.ptr(), dv.ptr(), dop.ptr(), dlse.ptr(), scale, b, hkv, r, s,
        ns));
    CHECK_TLC(tlc::attention_decode_sm_80::attention_decode_combine::launch(
        gpu.stream(), dop.ptr(), dlse.ptr(), dout.ptr(), b, hkv, ns, r));
  } else {
    CHECK_TLC(tlc::attention_decode::attention_decode_split::launch(
        gpu.stream(), dq.ptr(), dk.ptr(), dv.ptr(), dop.ptr(), dlse.ptr(), scale, b, hkv, r, s,
        ns));
    CHECK_TLC(tlc::attention_decode::attention_decode_combine::launch(
        gpu.stream(), dop.ptr(), dlse.ptr(), dout.ptr(), b, hkv, ns, r));
  }
  gpu.synchronize();
  std::vector<uint16_t> oh(nq);
  CHECK_CU(cuMemcpyDtoH(oh.data(), dout.ptr(), nq * 2));
  double worst = 0, maxRef = 1e-30;
  size_t bad = 0;
  std::vector<double> score(std::max<int64_t>(s, 1));
  for (int64_t bk = 0; bk < b * hkv; ++bk)
    for (int64_t row = 0; row < r; ++row) {
      const float *qr = &q[size_t((bk * r + row) * d)];
      const int64_t keys = keysOf(bk / hkv);
      double mx = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        double dot = 0;
        const float *kr = &k[size_t((bk * s + j) * d)];
        for (int64_t e = 0; e < d; ++e)
          dot += double(qr[e]) * kr[e];
        score[j] = dot * softmaxScale;
        mx = std::max(mx, score[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < keys; ++j)
        sum += (score[j] = std::exp(score[j] - mx));
      for (int64_t e = 0; e < d; ++e) {
        double want = 0;
        for (int64_t j = 0; j < keys; ++j)
          want += score[j] * v[size_t((bk * s + j) * d + e)];
        want = keys ? want / sum : 0.0;
        double got = fromBf16(oh[size_t((bk * r + row) * d + e)]);
        double err = std::fabs(got - want);
        // bf16 output rounding (2^-8 relative) plus the bf16 probabilities of P V.
        if (!(err <= 1e-2 * std::fabs(want) + 4e-3))
          ++bad;
        worst = std::max(worst, std::isnan(err) ? INFINITY : err);
        maxRef = std::max(maxRef, std::fabs(want));
      }
    }
  bad += clobberedGuardBytes(dout, nq * 2);
  std::printf("%s %s%s B=%lld HKV=%lld GROUP=%lld rows=%lld S=%lld NS=%lld: max error %.2e of "
              "max |ref| %.2f, %zu bad\n",
              bad ? "FAIL" : "PASS", sm80 ? "sm_80" : "sm_90a", paged ? " paged" : "", (long long)b,
              (long long)hkv, (long long)group, (long long)rowsPerHead, (long long)s, (long long)ns,
              worst, maxRef, bad);
  failures += bad != 0;
}
} // namespace

int main() {
  GpuContext gpu;
  for (bool sm80 : {false, true}) {
    runCase(gpu, sm80, 2, 2, 4, 1, 1000, 3, 11); // GQA 4, ragged keys, 3 splits
    runCase(gpu, sm80, 1, 3, 1, 1, 1, 4, 21);    // one key, splits without keys
    runCase(gpu, sm80, 2, 1, 8, 2, 4097, 7, 31); // R = 16 rows, a last block of one key
    runCase(gpu, sm80, 1, 2, 4, 1, 300, 64, 41); // more splits than key blocks
    runCase(gpu, sm80, 1, 2, 8, 3, 200, 2, 51);  // R = 24 rows: two row tiles per K/V head
    // Paged: 4 sequences of 1000, 963, 926, 889 keys in shuffled 64-token pages; one of 1 key.
    runCase(gpu, sm80, 4, 2, 4, 1, 1000, 3, 61, true);
    runCase(gpu, sm80, 1, 3, 1, 1, 1, 4, 71, true);
    runCase(gpu, sm80, 3, 1, 8, 2, 4097, 7, 81, true); // R = 16, long sequences
  }
  std::printf("attention_decode_test: %s\n", failures ? "FAIL" : "PASS");
  return failures ? 1 : 0;
}
