// GPU test of kernels/mla_decode.tile (DeepSeek's multi-head latent attention, decoding): one
// query row per head against a latent cache of 576-wide rows (values: their first 512 columns),
// split over the keys and combined, against a double reference. Heads 16 (one partial tile),
// 64 and 128 (two tiles); key counts 1, ragged and long; more splits than key blocks (empty
// splits); the cache contiguous and in shuffled 64-token pages with per-sequence lengths; sm_90a
// and sm_80 (PTX JIT). Scratch and output poisoned, guard bytes.

#include "GpuTest.h"
#include "mla_decode.h"
#include "mla_decode_sm_80.h"

#include <algorithm>

using namespace tlc::gputest;

namespace {
constexpr int64_t DK = 576, DV = 512, Page = 64;

bool runCase(const GpuContext &gpu, bool sm80, bool paged, int64_t b, int64_t h, int64_t s,
             int64_t ns, uint32_t seed) {
  std::vector<float> q(b * h * DK), kv(b * s * DK);
  randomFill(q, seed);
  randomFill(kv, seed + 1);
  std::vector<uint16_t> qh(q.size()), kvh(kv.size());
  for (size_t i = 0; i < q.size(); ++i)
    q[i] = fromBf16(qh[i] = toBf16(q[i]));
  for (size_t i = 0; i < kv.size(); ++i)
    kv[i] = fromBf16(kvh[i] = toBf16(kv[i]));
  // Paged: each sequence's keys in shuffled pages, sequence bb with max(s - 37 bb, 0) keys.
  auto keysOf = [&](int64_t bb) { return paged ? std::max<int64_t>(s - 37 * bb, 0) : s; };
  int64_t maxPages = std::max<int64_t>((s + Page - 1) / Page, 1), pages = b * maxPages;
  std::vector<int32_t> table(pages), lens(b);
  std::vector<uint16_t> cache;
  if (paged) {
    for (int64_t i = 0; i < pages; ++i)
      table[i] = int32_t(i);
    std::mt19937 gen(seed + 2);
    std::shuffle(table.begin(), table.end(), gen);
    cache.assign(size_t(pages * Page * DK), 0);
    for (int64_t bb = 0; bb < b; ++bb) {
      lens[bb] = int32_t(keysOf(bb));
      for (int64_t t = 0; t < s; ++t) {
        int64_t phys = int64_t(table[bb * maxPages + t / Page]) * Page + t % Page;
        std::copy_n(&kvh[size_t((bb * s + t) * DK)], DK, &cache[size_t(phys * DK)]);
      }
    }
  }
  const std::vector<uint16_t> &cacheBits = paged ? cache : kvh;
  DeviceBuffer dq(qh.size() * 2), dkv(cacheBits.size() * 2 + 2), dtable(table.size() * 4),
      dlens(lens.size() * 4 + 4), dop(size_t(b * ns * h * DV) * 4), dlse(size_t(b * ns * h) * 4),
      dout((b * h * DV + GuardElements) * 2);
  CHECK_CU(cuMemcpyHtoD(dq.ptr(), qh.data(), qh.size() * 2));
  if (!cacheBits.empty())
    CHECK_CU(cuMemcpyHtoD(dkv.ptr(), cacheBits.data(), cacheBits.size() * 2));
  CHECK_CU(cuMemcpyHtoD(dtable.ptr(), table.data(), table.size() * 4));
  CHECK_CU(cuMemcpyHtoD(dlens.ptr(), lens.data(), lens.size() * 4));
  CHECK_CU(cuMemsetD32(dop.ptr(), 0x7fc00000, size_t(b * ns * h * DV)));
  CHECK_CU(cuMemsetD32(dlse.ptr(), 0x7fc00000, size_t(b * ns * h)));
  poison(dout, gpu.stream());
  double softmaxScale = 1.0 / std::sqrt(double(DK));
  float scale = float(softmaxScale * 1.4426950408889634);
  namespace f = tlc::mla_decode;
  namespace f80 = tlc::mla_decode_sm_80;
  if (paged) {
    auto split = sm80 ? f80::mla_decode_paged_split::launch : f::mla_decode_paged_split::launch;
    CHECK_TLC(split(gpu.stream(), dq.ptr(), dkv.ptr(), dtable.ptr(), dlens.ptr(), dop.ptr(),
                    dlse.ptr(), scale, b, h, pages * Page, maxPages, ns));
  } else {
    auto split = sm80 ? f80::mla_decode_split::launch : f::mla_decode_split::launch;
    CHECK_TLC(split(gpu.stream(), dq.ptr(), dkv.ptr(), dop.ptr(), dlse.ptr(), scale, b, h, s, ns));
  }
  auto combine = sm80 ? f80::mla_decode_combine::launch : f::mla_decode_combine::launch;
  CHECK_TLC(combine(gpu.stream(), dop.ptr(), dlse.ptr(), dout.ptr(), b, ns, h));
  gpu.synchronize();
  std::vector<uint16_t> out(b * h * DV);
  CHECK_CU(cuMemcpyDtoH(out.data(), dout.ptr(), out.size() * 2));
  std::vector<float> got(out.size());
  std::vector<double> ref(out.size()), magnitude(out.size()), score(std::max<int64_t>(s, 1));
  for (int64_t bb = 0; bb < b; ++bb) {
    int64_t keys = keysOf(bb);
    for (int64_t hh = 0; hh < h; ++hh) {
      const float *qr = &q[size_t((bb * h + hh) * DK)];
      double mx = -INFINITY, sum = 0;
      for (int64_t j = 0; j < keys; ++j) {
        const float *kr = &kv[size_t((bb * s + j) * DK)];
        double dot = 0;
        for (int64_t e = 0; e < DK; ++e)
          dot += double(qr[e]) * kr[e];
        score[j] = dot * softmaxScale;
        mx = std::max(mx, score[j]);
      }
      for (int64_t j = 0; j < keys; ++j)
        sum += score[j] = std::exp(score[j] - mx);
      for (int64_t e = 0; e < DV; ++e) {
        double acc = 0, mag = 0;
        for (int64_t j = 0; j < keys; ++j) {
          double t = score[j] * kv[size_t((bb * s + j) * DK + e)];
          acc += t;
          mag += std::fabs(t);
        }
        size_t at = size_t((bb * h + hh) * DV + e);
        ref[at] = keys ? acc / sum : 0.0;
        magnitude[at] = keys ? mag / sum : 0.0;
        got[at] = fromBf16(out[at]);
      }
    }
  }
  // bf16 probabilities in P V and the bf16 output: about 2^-8 of the terms' magnitude each.
  Comparison cmp = compare(got, ref, magnitude, 2e-2);
  char name[160];
  std::snprintf(name, sizeof(name), "mla_decode %s%s B=%lld H=%lld S=%lld NS=%lld",
                sm80 ? "sm_80" : "sm_90a", paged ? " paged" : "", (long long)b, (long long)h,
                (long long)s, (long long)ns);
  return report(name, cmp, got, ref, clobberedGuardBytes(dout, out.size() * 2));
}
} // namespace

int main() {
  GpuContext gpu;
  bool ok = true;
  uint32_t seed = 1;
  for (bool sm80 : {false, true})
    for (bool paged : {false, true}) {
      ok &= runCase(gpu, sm80, paged, 2, 128, 1000, 4, seed += 3); // two head tiles, ragged
      ok &= runCase(gpu, sm80, paged, 1, 16, 1, 3, seed += 3);     // one key, empty splits
      ok &= runCase(gpu, sm80, paged, 3, 64, 4097, 8, seed += 3);  // a last block of one key
      ok &= runCase(gpu, sm80, paged, 1, 64, 300, 64, seed += 3);  // more splits than blocks
    }
  std::printf("%s\n", ok ? "ALL PASS" : "SOME FAILED");
  return ok ? 0 : 1;
}
