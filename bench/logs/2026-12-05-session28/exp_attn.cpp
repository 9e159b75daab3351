// Attention key-block widths (BN) in one process: each variant checked against BN=64's output.
#include "GpuTest.h"
#include "a_bn112.h"
#include "a_bn64.h"
#include "a_bn80.h"
#include "a_bn96.h"
#include "c_bn112.h"
#include "c_bn64.h"
#include "c_bn80.h"
#include "c_bn96.h"
#include <cmath>
using namespace tlc::gputest;
using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                   float, int64_t, int64_t, int64_t);
int main(int argc, char **argv) {
  GpuContext gpu;
  int64_t B = 4, H = 32, S = 4096, D = 128;
  if (argc == 4) {
    B = atoll(argv[1]);
    H = atoll(argv[2]);
    S = atoll(argv[3]);
  }
  size_t count = size_t(B * H * S * D);
  DeviceBuffer q(count * 2), k(count * 2), v(count * 2), ref(count * 2), o(count * 2);
  randomBf16(q, count, 3);
  randomBf16(k, count, 4);
  randomBf16(v, count, 5);
  float scale = float(1.4426950408889634 / std::sqrt(double(D)));
  struct V {
    const char *name;
    Launch f;
    bool causal;
  };
  std::vector<V> vs = {
      {"full bn64", tlc::a_bn64::launch, false},  {"full bn80", tlc::a_bn80::launch, false},
      {"full bn96", tlc::a_bn96::launch, false},  {"full bn112", tlc::a_bn112::launch, false},
      {"causal bn64", tlc::c_bn64::launch, true}, {"causal bn80", tlc::c_bn80::launch, true},
      {"causal bn96", tlc::c_bn96::launch, true}, {"causal bn112", tlc::c_bn112::launch, true}};
  std::vector<uint16_t> want(count), got(count);
  for (int pass = 0; pass < 2; ++pass) {
    bool causal = pass == 1;
    CHECK_TLC(
        vs[causal ? 4 : 0].f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), ref.ptr(), scale, B, H, S));
    gpu.synchronize();
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), count * 2));
    std::vector<std::vector<double>> t(4);
    for (int i = 0; i < 4; ++i) {
      const V &x = vs[pass * 4 + i];
      poison(o, gpu.stream());
      CHECK_TLC(x.f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), scale, B, H, S));
      gpu.synchronize();
      CHECK_CU(cuMemcpyDtoH(got.data(), o.ptr(), count * 2));
      double worst = 0;
      bool fin = true;
      for (size_t e = 0; e < count; ++e) {
        float g = fromBf16(got[e]);
        fin &= std::isfinite(g);
        worst = std::max(worst, double(std::fabs(g - fromBf16(want[e]))));
      }
      std::printf("CHECK %s worst=%.3e %s\n", x.name, worst, fin && worst < 2e-2 ? "ok" : "FAIL");
    }
    for (int r = 0; r < 5; ++r)
      for (int i = 0; i < 4; ++i) {
        const V &x = vs[pass * 4 + i];
        t[i].push_back(medianMs(gpu, 2, 5, [&] {
          CHECK_TLC(x.f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), scale, B, H, S));
        }));
      }
    double flops = 4.0 * B * H * S * S * D * (causal ? 0.5 : 1.0);
    for (int i = 0; i < 4; ++i) {
      std::sort(t[i].begin(), t[i].end());
      std::printf("BENCH attention B%lld H%lld S%lld D128 %s %.4f ms %.1f TFLOP/s\n", (long long)B,
                  (long long)H, (long long)S, vs[pass * 4 + i].name, t[i][2],
                  flops / t[i][2] / 1e9);
    }
  }
}
