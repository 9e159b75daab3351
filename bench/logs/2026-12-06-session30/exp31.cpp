// Session 30, run 2: the shipped key-block configurations of attention.tile (f16 and bf16 D64:
// 128 keys on sm_90a) and attention_gqa.tile (D128: 96 keys) against BN = 64 in one process;
// causal f16 D64 with 128-key blocks (not shipped) against the shipped 64.
#include "GpuTest.h"
#include "e_bd64_bn64.h"
#include "e_bd64_shipped.h"
#include "e_cd64_bn128.h"
#include "e_cd64_shipped.h"
#include "e_d64_bn64.h"
#include "e_d64_shipped.h"
#include "e_gqa_bn64.h"
#include "e_gqa_shipped.h"
#include <cmath>
#include <functional>
using namespace tlc::gputest;
using Run = std::function<void(CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr)>;
struct V {
  const char *name;
  Run run;
};
static void bench(GpuContext &gpu, const char *what, bool f16, int64_t B, int64_t H, int64_t HKV,
                  int64_t S, int64_t D, double flops, std::vector<V> vs) {
  size_t qc = size_t(B * H * S * D), kc = size_t(B * HKV * S * D);
  DeviceBuffer q(qc * 2), k(kc * 2), v(kc * 2), ref(qc * 2), o(qc * 2);
  uint32_t seed = 21;
  for (auto [buf, count] : {std::pair{&q, qc}, std::pair{&k, kc}, std::pair{&v, kc}}) {
    std::vector<float> host(count);
    randomFill(host, seed++);
    std::vector<uint16_t> h(count);
    for (size_t e = 0; e < count; ++e)
      h[e] = f16 ? toF16(host[e]) : toBf16(host[e]);
    CHECK_CU(cuMemcpyHtoD(buf->ptr(), h.data(), count * 2));
  }
  auto value = [&](uint16_t x) { return f16 ? fromF16(x) : fromBf16(x); };
  std::vector<uint16_t> want(qc), got(qc);
  vs[0].run(q.ptr(), k.ptr(), v.ptr(), ref.ptr());
  gpu.synchronize();
  CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), qc * 2));
  for (size_t i = 1; i < vs.size(); ++i) {
    poison(o, gpu.stream());
    vs[i].run(q.ptr(), k.ptr(), v.ptr(), o.ptr());
    gpu.synchronize();
    CHECK_CU(cuMemcpyDtoH(got.data(), o.ptr(), qc * 2));
    double worst = 0;
    bool fin = true;
    for (size_t e = 0; e < qc; ++e) {
      float g = value(got[e]);
      fin &= std::isfinite(g);
      worst = std::max(worst, double(std::fabs(g - value(want[e]))));
    }
    std::printf("CHECK %s %s worst=%.3e %s\n", what, vs[i].name, worst,
                fin && worst < 2e-2 ? "ok" : "FAIL");
  }
  std::vector<std::vector<double>> t(vs.size());
  for (int r = 0; r < 5; ++r)
    for (size_t i = 0; i < vs.size(); ++i)
      t[i].push_back(medianMs(gpu, 2, 5, [&] { vs[i].run(q.ptr(), k.ptr(), v.ptr(), o.ptr()); }));
  for (size_t i = 0; i < vs.size(); ++i) {
    std::sort(t[i].begin(), t[i].end());
    std::printf("BENCH %s %s %.4f ms %.1f TFLOP/s\n", what, vs[i].name, t[i][2],
                flops / t[i][2] / 1e9);
  }
}
int main() {
  GpuContext gpu;
  CUstream st = gpu.stream();
  int64_t B = 4, H = 32, S = 4096;
#define ATT(ns, d)                                                                                 \
  [&, d](CUdeviceptr q, CUdeviceptr k, CUdeviceptr v, CUdeviceptr o) {                             \
    CHECK_TLC(                                                                                     \
        tlc::ns::attention_fwd::launch(st, q, k, v, o, float(1.4427 / std::sqrt(d)), B, H, S));    \
  }
  double d64 = 64, d128 = 128;
  double full64 = 4.0 * B * H * S * S * 64, full128 = 4.0 * B * H * S * S * 128;
  bench(gpu, "attention f16 B4 H32 S4096 D64 full", true, B, H, H, S, 64, full64,
        {{"bn64", ATT(e_d64_bn64, d64)}, {"shipped", ATT(e_d64_shipped, d64)}});
  bench(gpu, "attention bf16 B4 H32 S4096 D64 full", false, B, H, H, S, 64, full64,
        {{"bn64", ATT(e_bd64_bn64, d64)}, {"shipped", ATT(e_bd64_shipped, d64)}});
  bench(gpu, "attention f16 B4 H32 S4096 D64 causal", true, B, H, H, S, 64, full64 / 2,
        {{"shipped(bn64)", ATT(e_cd64_shipped, d64)}, {"bn128", ATT(e_cd64_bn128, d64)}});
  int64_t HKV = 8;
#define GQA(ns)                                                                                    \
  [&](CUdeviceptr q, CUdeviceptr k, CUdeviceptr v, CUdeviceptr o) {                                \
    CHECK_TLC(tlc::ns::attention_gqa_fwd::launch(st, q, k, v, o, float(1.4427 / std::sqrt(d128)),  \
                                                 B, H, S, HKV));                                   \
  }
  bench(gpu, "attention_gqa bf16 B4 H32 HKV8 S4096 D128 full", false, B, H, HKV, S, 128, full128,
        {{"bn64", GQA(e_gqa_bn64)}, {"shipped", GQA(e_gqa_shipped)}});
  return 0;
}
