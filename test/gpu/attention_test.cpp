// GPU test of kernels/attention.tile (FlashAttention forward, bf16 in/out, f32 softmax and
// accumulation), full and causal (the same source compiled with -D CAUSAL=true), for sm_90a
// (SASS) and for sm_80 (compute_80 PTX, JIT-compiled by the driver); both take the register
// strategy (mma.sync: 32 rows per warp); causal with BM = 64 on 4 warps (16 rows per warp: both
// gemms on wgmma on sm_90a, P V with P from registers); and with f16 tensors and head dimension 64
// (-D T=f16 -D D=64). Tensors starting one element past a 16-byte boundary take its element-copy
// version instead of cp.async chunks. GQA: kernels/attention_gqa.tile, 4 query heads per K/V head.
// Head dimension 256 (-D D=256 -D BN=32), full and causal.

#include "GpuTest.h"
#include "attention.h"
#include "attention_causal.h"
#include "attention_causal_wgmma.h"
#include "attention_d256.h"
#include "attention_d256_causal.h"
#include "attention_f16_d64.h"
#include "attention_gqa.h"
#include "attention_sm_80.h"

#include <cstring>

using namespace tlc::gputest;

enum class Variant { Full, Causal, CausalSm80, F16D64, Gqa, CausalWgmma, D256, D256Causal };

static bool runCase(const GpuContext &gpu, Variant variant, int64_t b, int64_t h, int64_t s,
                    uint32_t seed, bool misaligned = false) {
  // F16D64: f16 tensors, head dimension 64 (-D T=f16 -D D=64).
  bool f16 = variant == Variant::F16D64;
  const int64_t d = f16                                                            ? 64
                    : (variant == Variant::D256 || variant == Variant::D256Causal) ? 256
                                                                                   : 128;
  bool causal = variant == Variant::Causal || variant == Variant::CausalSm80 ||
                variant == Variant::CausalWgmma || variant == Variant::D256Causal;
  // GQA: query head hh reads K/V head hh / group (attention_gqa.tile's GROUP).
  const int64_t group = variant == Variant::Gqa ? 4 : 1, hkv = h / group;
  auto round = [&](float x, uint16_t &bits) {
    bits = f16 ? toF16(x) : toBf16(x);
    return f16 ? fromF16(bits) : fromBf16(bits);
  };
  size_t n = size_t(b * h * s * d), nkv = size_t(b * hkv * s * d);
  // A misaligned case shifts every tensor by one element (2 bytes).
  size_t shift = misaligned ? 1 : 0;
  std::vector<float> q(n), k(nkv), v(nkv);
  randomFill(q, seed);
  randomFill(k, seed + 1);
  randomFill(v, seed + 2);
  std::vector<uint16_t> qh(n), kh(nkv), vh(nkv);
  for (size_t i = 0; i < n; ++i)
    q[i] = round(q[i], qh[i]);
  for (size_t i = 0; i < nkv; ++i) {
    k[i] = round(k[i], kh[i]);
    v[i] = round(v[i], vh[i]);
  }
  DeviceBuffer dq((n + shift) * 2), dk((nkv + shift) * 2), dv((nkv + shift) * 2),
      dout((n + GuardElements) * 2);
  CUdeviceptr pq = dq.ptr() + shift * 2, pk = dk.ptr() + shift * 2, pv = dv.ptr() + shift * 2;
  CHECK_CU(cuMemcpyHtoD(pq, qh.data(), n * 2));
  CHECK_CU(cuMemcpyHtoD(pk, kh.data(), nkv * 2));
  CHECK_CU(cuMemcpyHtoD(pv, vh.data(), nkv * 2));
  poison(dout, gpu.stream());
  double softmaxScale = 1.0 / std::sqrt(double(d));
  float scale = float(softmaxScale * 1.4426950408889634); // times log2(e): the kernel uses exp2
  if (variant == Variant::Causal)
    CHECK_TLC(tlc::attention_causal::launch(gpu.stream(), pq, pk, pv, dout.ptr(), scale, b, h, s));
  else if (variant == Variant::CausalWgmma)
    CHECK_TLC(
        tlc::attention_causal_wgmma::launch(gpu.stream(), pq, pk, pv, dout.ptr(), scale, b, h, s));
  else if (variant == Variant::CausalSm80)
    CHECK_TLC(tlc::attention_sm_80::launch(gpu.stream(), pq, pk, pv, dout.ptr(), scale, b, h, s));
  else if (variant == Variant::Gqa)
    CHECK_TLC(
        tlc::attention_gqa::launch(gpu.stream(), pq, pk, pv, dout.ptr(), scale, b, h, s, hkv));
  else if (f16)
    CHECK_TLC(tlc::attention_f16_d64::launch(gpu.stream(), pq, pk, pv, dout.ptr(), scale, b, h, s));
  else if (variant == Variant::D256)
    CHECK_TLC(tlc::attention_d256::launch(gpu.stream(), pq, pk, pv, dout.ptr(), scale, b, h, s));
  else if (variant == Variant::D256Causal)
    CHECK_TLC(
        tlc::attention_d256_causal::launch(gpu.stream(), pq, pk, pv, dout.ptr(), scale, b, h, s));
  else
    CHECK_TLC(tlc::attention::launch(gpu.stream(), pq, pk, pv, dout.ptr(), scale, b, h, s));
  gpu.synchronize();
  std::vector<uint16_t> oh(n);
  CHECK_CU(cuMemcpyDtoH(oh.data(), dout.ptr(), n * 2));

  std::vector<float> got(n);
  std::vector<double> ref(n), magnitude(n);
  std::vector<double> score(s);
  for (int64_t bh = 0; bh < b * h; ++bh) {
    int64_t kvh = (bh / h) * hkv + (bh % h) / group;
    const float *Q = &q[bh * s * d], *K = &k[kvh * s * d], *V = &v[kvh * s * d];
    for (int64_t i = 0; i < s; ++i) {
      int64_t keys = causal ? i + 1 : s;
      double mx = -INFINITY;
      for (int64_t j = 0; j < keys; ++j) {
        double dot = 0;
        for (int64_t c = 0; c < d; ++c)
          dot += double(Q[i * d + c]) * double(K[j * d + c]);
        score[j] = dot * softmaxScale;
        mx = std::max(mx, score[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < keys; ++j)
        sum += (score[j] = std::exp(score[j] - mx));
      for (int64_t c = 0; c < d; ++c) {
        double acc = 0, mag = 0;
        for (int64_t j = 0; j < keys; ++j) {
          acc += score[j] * double(V[j * d + c]);
          mag += score[j] * std::fabs(double(V[j * d + c]));
        }
        size_t idx = size_t((bh * s + i) * d + c);
        ref[idx] = acc / sum;
        magnitude[idx] = mag / sum;
        got[idx] = f16 ? fromF16(oh[idx]) : fromBf16(oh[idx]);
      }
    }
  }
  // bf16 P and bf16 output: errors of a few 1e-3 relative to the magnitude of the terms.
  Comparison cmp = compare(got, ref, magnitude, 2e-2);
  char name[160];
  std::snprintf(name, sizeof(name), "attention%s%s%s%s%s B=%lld H=%lld S=%lld D=%lld",
                variant == Variant::Gqa ? " GQA (4 heads per K/V head)" : "", f16 ? " f16" : "",
                causal ? " causal" : "",
                variant == Variant::CausalSm80    ? " sm_80 (PTX JIT)"
                : variant == Variant::CausalWgmma ? " BM=64 BN=64 (wgmma)"
                                                  : "",
                misaligned ? " misaligned" : "", (long long)b, (long long)h, (long long)s,
                (long long)d);
  return report(name, cmp, got, ref, clobberedGuardBytes(dout, n * 2));
}

int main(int argc, char **argv) {
  GpuContext gpu;
  bool ok = true;
  // `small`: the small cases only (for compute-sanitizer).
  if (argc > 1 && std::strcmp(argv[1], "small") == 0) {
    ok &= runCase(gpu, Variant::Causal, 1, 2, 129, 67);
    ok &= runCase(gpu, Variant::Full, 1, 1, 200, 71, /*misaligned=*/true);
    ok &= runCase(gpu, Variant::CausalSm80, 1, 1, 77, 75);
    ok &= runCase(gpu, Variant::Gqa, 1, 8, 77, 81);
    ok &= runCase(gpu, Variant::CausalWgmma, 1, 2, 129, 85);
    std::printf("attention_test small: %s\n", ok ? "PASS" : "FAIL");
    return ok ? 0 : 1;
  }
  ok &= runCase(gpu, Variant::Full, 2, 3, 1000, 61);
  ok &= runCase(gpu, Variant::Causal, 2, 3, 1000, 63);
  ok &= runCase(gpu, Variant::Full, 1, 1, 1, 65);
  ok &= runCase(gpu, Variant::Causal, 1, 2, 129, 67);
  ok &= runCase(gpu, Variant::Full, 1, 2, 2048, 69);
  ok &= runCase(gpu, Variant::Full, 1, 2, 300, 71, /*misaligned=*/true);
  ok &= runCase(gpu, Variant::CausalSm80, 2, 3, 1000, 73);
  ok &= runCase(gpu, Variant::CausalSm80, 1, 1, 77, 75, /*misaligned=*/true);
  ok &= runCase(gpu, Variant::F16D64, 2, 3, 1000, 77);
  ok &= runCase(gpu, Variant::F16D64, 1, 2, 100, 79, /*misaligned=*/true);
  ok &= runCase(gpu, Variant::Gqa, 2, 8, 1000, 81);
  ok &= runCase(gpu, Variant::Gqa, 1, 4, 130, 83, /*misaligned=*/true);
  ok &= runCase(gpu, Variant::CausalWgmma, 2, 3, 1000, 85);
  ok &= runCase(gpu, Variant::CausalWgmma, 1, 2, 129, 87);
  ok &= runCase(gpu, Variant::CausalWgmma, 1, 1, 1, 89);
  ok &= runCase(gpu, Variant::CausalWgmma, 1, 1, 77, 91, /*misaligned=*/true);
  ok &= runCase(gpu, Variant::D256, 2, 3, 1000, 93);
  ok &= runCase(gpu, Variant::D256, 1, 2, 77, 95, /*misaligned=*/true);
  ok &= runCase(gpu, Variant::D256Causal, 2, 3, 1000, 97);
  ok &= runCase(gpu, Variant::D256Causal, 1, 1, 1, 99);
  std::printf("attention_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
