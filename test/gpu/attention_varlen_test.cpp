// GPU test of kernels/attention_varlen.tile (variable-length FlashAttention forward, bf16 in/out,
// f32 softmax and accumulation): sequences of ragged lengths (the kernel takes the lengths, the
// test also their running sums as the reference's offsets) packed in [total, H, D] tensors
// (lengths 0, 1, tile multiples and tile multiples +- 1), full and causal (-D CAUSAL=true, the
// diagonal at the bottom-right corner when a sequence has more keys than queries), GQA
// (-D GROUP=2: two query heads per K/V head), sm_90a (SASS) and sm_80 (PTX JIT). Random inputs,
// O poisoned, guard bytes, a double reference per (sequence, head, query row); rows with no key
// to attend must be zeros.

#include "GpuTest.h"
#include "attention_varlen.h"
#include "attention_varlen_causal.h"
#include "attention_varlen_causal_sm_80.h"
#include "attention_varlen_gqa.h"

using namespace tlc::gputest;

namespace {
using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                   CUdeviceptr, CUdeviceptr, float, int64_t, int64_t, int64_t,
                                   int64_t, int64_t, int64_t, int64_t, int64_t, int64_t);

struct Build {
  const char *what;
  Launch launch;
  bool causal;
  int64_t group;
};

constexpr int64_t D = 128;

/// Random bf16 values, as floats and as bits.
void randomBf16Values(std::vector<float> &values, std::vector<uint16_t> &bits, uint32_t seed) {
  randomFill(values, seed);
  bits.resize(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    bits[i] = toBf16(values[i]);
    values[i] = fromBf16(bits[i]);
  }
}

bool runCase(const GpuContext &gpu, const Build &build, const std::vector<int32_t> &qLens,
             const std::vector<int32_t> &kLens, int64_t h, uint32_t seed) {
  const int64_t hkv = h / build.group;
  std::vector<int32_t> cuQ{0}, cuK{0};
  int64_t maxQ = 0;
  for (size_t i = 0; i < qLens.size(); ++i) {
    cuQ.push_back(cuQ.back() + qLens[i]);
    cuK.push_back(cuK.back() + kLens[i]);
    maxQ = std::max<int64_t>(maxQ, qLens[i]);
  }
  const int64_t tq = cuQ.back(), tk = cuK.back(), nb = int64_t(qLens.size());
  // Packed [total, heads, D], row-major: token stride heads * D.
  std::vector<float> q(tq * h * D), k(tk * hkv * D), v(tk * hkv * D);
  std::vector<uint16_t> qb, kb, vb;
  randomBf16Values(q, qb, seed);
  randomBf16Values(k, kb, seed + 1);
  randomBf16Values(v, vb, seed + 2);
  DeviceBuffer dq(qb.size() * 2 + 2), dk(kb.size() * 2 + 2), dv(vb.size() * 2 + 2),
      dout((tq * h * D + GuardElements) * 2), dlq(qLens.size() * 4), dlk(kLens.size() * 4);
  if (!qb.empty())
    CHECK_CU(cuMemcpyHtoD(dq.ptr(), qb.data(), qb.size() * 2));
  if (!kb.empty()) {
    CHECK_CU(cuMemcpyHtoD(dk.ptr(), kb.data(), kb.size() * 2));
    CHECK_CU(cuMemcpyHtoD(dv.ptr(), vb.data(), vb.size() * 2));
  }
  CHECK_CU(cuMemcpyHtoD(dlq.ptr(), qLens.data(), qLens.size() * 4));
  CHECK_CU(cuMemcpyHtoD(dlk.ptr(), kLens.data(), kLens.size() * 4));
  poison(dout, gpu.stream());
  double softmaxScale = 1.0 / std::sqrt(double(D));
  float scale = float(softmaxScale * 1.4426950408889634); // times log2(e): the kernel uses exp2
  CHECK_TLC(build.launch(gpu.stream(), dq.ptr(), dk.ptr(), dv.ptr(), dout.ptr(), dlq.ptr(),
                         dlk.ptr(), scale, maxQ, h, tq, h * D, hkv, tk, hkv * D, h * D, nb));
  gpu.synchronize();
  std::vector<uint16_t> out(tq * h * D);
  if (!out.empty())
    CHECK_CU(cuMemcpyDtoH(out.data(), dout.ptr(), out.size() * 2));
  std::vector<float> got(out.size());
  std::vector<double> ref(out.size()), magnitude(out.size());
  std::vector<double> p;
  for (size_t seq = 0; seq + 1 < cuQ.size(); ++seq) {
    int64_t q0 = cuQ[seq], sq = qLens[seq], k0 = cuK[seq], sk = kLens[seq];
    for (int64_t hh = 0; hh < h; ++hh) {
      int64_t kv = hh / build.group;
      for (int64_t i = 0; i < sq; ++i) {
        const float *qi = &q[((q0 + i) * h + hh) * D];
        int64_t last = build.causal ? std::min(sk - 1, i + sk - sq) : sk - 1;
        p.assign(std::max<int64_t>(last + 1, 0), 0.0);
        double mx = -INFINITY, sum = 0;
        for (int64_t j = 0; j <= last; ++j) {
          const float *kj = &k[((k0 + j) * hkv + kv) * D];
          double dot = 0;
          for (int64_t d = 0; d < D; ++d)
            dot += double(qi[d]) * kj[d];
          p[j] = dot * softmaxScale;
          mx = std::max(mx, p[j]);
        }
        for (int64_t j = 0; j <= last; ++j)
          sum += p[j] = std::exp(p[j] - mx);
        for (int64_t d = 0; d < D; ++d) {
          double acc = 0, mag = 0;
          for (int64_t j = 0; j <= last; ++j) {
            double t = p[j] * v[((k0 + j) * hkv + kv) * D + d];
            acc += t;
            mag += std::fabs(t);
          }
          size_t at = size_t(((q0 + i) * h + hh) * D + d);
          ref[at] = last >= 0 ? acc / sum : 0.0;
          // P rounds to bf16 before P V: an error of 2^-8 of each term, relative to their sum.
          magnitude[at] = last >= 0 ? mag / sum : 0.0;
          got[at] = fromBf16(out[at]);
        }
      }
    }
  }
  Comparison cmp = compare(got, ref, magnitude, 2e-2);
  char name[160];
  std::snprintf(name, sizeof(name), "attention_varlen %s H=%lld seqs=%zu TQ=%lld TK=%lld",
                build.what, (long long)h, qLens.size(), (long long)tq, (long long)tk);
  return report(name, cmp, got, ref, clobberedGuardBytes(dout, out.size() * 2));
}
} // namespace

int main() {
  GpuContext gpu;
  const Build builds[] = {
      {"full", tlc::attention_varlen::launch, false, 1},
      {"causal", tlc::attention_varlen_causal::launch, true, 1},
      {"gqa (2 query heads per K/V head)", tlc::attention_varlen_gqa::launch, false, 2},
      {"causal sm_80 (PTX JIT)", tlc::attention_varlen_causal_sm_80::launch, true, 1}};
  struct Case {
    std::vector<int32_t> q, k;
  } cases[] = {
      {{64, 1, 65, 200, 63, 128}, {64, 1, 65, 200, 63, 128}}, // self-attention, ragged
      {{1}, {1}},                                             // one token
      {{7, 0, 300}, {7, 0, 300}},                             // an empty sequence
      {{1, 1, 1, 1}, {500, 64, 129, 1}},                      // decode-like: 1 query, many keys
      {{100, 33}, {40, 300}},                                 // fewer and more keys than queries
  };
  bool ok = true;
  uint32_t seed = 1;
  for (const Build &build : builds)
    for (const Case &c : cases)
      ok &= runCase(gpu, build, c.q, c.k, 4, seed += 3);
  std::printf("%s\n", ok ? "ALL PASS" : "SOME FAILED");
  return ok ? 0 : 1;
}
