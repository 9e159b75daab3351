// Session 30 experiments, one process: attention key blocks (shipped launcher = BN 96 on sm_90a
// for full D128, against -D BN=64 and the 8-warp build whose P V reads P from shared memory),
// and linear_attention before (e4c92ce: its K^T V on mma.sync) and after (transposed-A wgmma).
#include "GpuTest.h"
#include "attention.h"
#include "e_attn_bn64.h"
#include "e_attn_w8.h"
#include "e_d64_bn128.h"
#include "e_d64_bn64.h"
#include "e_d64_bn96.h"
#include "e_d64_w8.h"
#include "e_la_before.h"
#include "linear_attention.h"
#include <cmath>
using namespace tlc::gputest;
using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                   float, int64_t, int64_t, int64_t);
using LaLaunch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                     int64_t, int64_t, int64_t);
static double worstDiff(const std::vector<uint16_t> &a, const std::vector<uint16_t> &b, bool &fin) {
  double worst = 0;
  fin = true;
  for (size_t e = 0; e < a.size(); ++e) {
    float g = fromBf16(a[e]);
    fin &= std::isfinite(g);
    worst = std::max(worst, double(std::fabs(g - fromBf16(b[e]))));
  }
  return worst;
}
int main(int argc, char **argv) {
  GpuContext gpu;
  struct Shape {
    int64_t B, H, S;
  };
  for (Shape sh : {Shape{4, 32, 4096}, Shape{8, 16, 8192}, Shape{2, 16, 1000}}) {
    int64_t B = sh.B, H = sh.H, S = sh.S, D = 128;
    size_t count = size_t(B * H * S * D);
    DeviceBuffer q(count * 2), k(count * 2), v(count * 2), ref(count * 2), o(count * 2);
    randomBf16(q, count, 3);
    randomBf16(k, count, 4);
    randomBf16(v, count, 5);
    float scale = float(1.4426950408889634 / std::sqrt(double(D)));
    struct V {
      const char *name;
      Launch f;
    };
    std::vector<V> vs = {{"bn64", tlc::e_attn_bn64::attention_fwd::launch},
                         {"shipped(bn96)", tlc::attention::attention_fwd::launch},
                         {"w8_pshared", tlc::e_attn_w8::attention_fwd::launch}};
    std::vector<uint16_t> want(count), got(count);
    CHECK_TLC(vs[0].f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), ref.ptr(), scale, B, H, S));
    gpu.synchronize();
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), count * 2));
    for (size_t i = 1; i < vs.size(); ++i) {
      poison(o, gpu.stream());
      CHECK_TLC(vs[i].f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), scale, B, H, S));
      gpu.synchronize();
      CHECK_CU(cuMemcpyDtoH(got.data(), o.ptr(), count * 2));
      bool fin;
      double worst = worstDiff(got, want, fin);
      std::printf("CHECK attention B%lld H%lld S%lld %s worst=%.3e %s\n", (long long)B,
                  (long long)H, (long long)S, vs[i].name, worst,
                  fin && worst < 2e-2 ? "ok" : "FAIL");
    }
    std::vector<std::vector<double>> t(vs.size());
    for (int r = 0; r < 5; ++r)
      for (size_t i = 0; i < vs.size(); ++i)
        t[i].push_back(medianMs(gpu, 2, 5, [&] {
          CHECK_TLC(vs[i].f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), scale, B, H, S));
        }));
    double flops = 4.0 * B * H * S * S * D;
    for (size_t i = 0; i < vs.size(); ++i) {
      std::sort(t[i].begin(), t[i].end());
      std::printf("BENCH attention B%lld H%lld S%lld D128 full %s %.4f ms %.1f TFLOP/s\n",
                  (long long)B, (long long)H, (long long)S, vs[i].name, t[i][2],
                  flops / t[i][2] / 1e9);
    }
  }
  // f16 D = 64 (issue 12's second bar): key-block widths, against the shipped BN = 64.
  {
    int64_t B = 4, H = 32, S = 4096, D = 64;
    size_t count = size_t(B * H * S * D);
    DeviceBuffer q(count * 2), k(count * 2), v(count * 2), ref(count * 2), o(count * 2);
    std::vector<float> host(count);
    for (auto [buf, seed] : {std::pair{&q, 11u}, std::pair{&k, 12u}, std::pair{&v, 13u}}) {
      randomFill(host, seed);
      std::vector<uint16_t> h(count);
      for (size_t e = 0; e < count; ++e)
        h[e] = toF16(host[e]);
      CHECK_CU(cuMemcpyHtoD(buf->ptr(), h.data(), count * 2));
    }
    float scale = float(1.4426950408889634 / std::sqrt(double(D)));
    struct V {
      const char *name;
      Launch f;
    };
    std::vector<V> vs = {{"d64 bn64 (shipped)", tlc::e_d64_bn64::attention_fwd::launch},
                         {"d64 bn96", tlc::e_d64_bn96::attention_fwd::launch},
                         {"d64 bn128", tlc::e_d64_bn128::attention_fwd::launch},
                         {"d64 bm128 w8 bn128", tlc::e_d64_w8::attention_fwd::launch}};
    std::vector<uint16_t> want(count), got(count);
    CHECK_TLC(vs[0].f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), ref.ptr(), scale, B, H, S));
    gpu.synchronize();
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), count * 2));
    for (size_t i = 1; i < vs.size(); ++i) {
      poison(o, gpu.stream());
      CHECK_TLC(vs[i].f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), scale, B, H, S));
      gpu.synchronize();
      CHECK_CU(cuMemcpyDtoH(got.data(), o.ptr(), count * 2));
      double worst = 0;
      bool fin = true;
      for (size_t e = 0; e < count; ++e) {
        float g = fromF16(got[e]);
        fin &= std::isfinite(g);
        worst = std::max(worst, double(std::fabs(g - fromF16(want[e]))));
      }
      std::printf("CHECK attention f16 D64 %s worst=%.3e %s\n", vs[i].name, worst,
                  fin && worst < 1e-2 ? "ok" : "FAIL");
    }
    std::vector<std::vector<double>> t(vs.size());
    for (int r = 0; r < 5; ++r)
      for (size_t i = 0; i < vs.size(); ++i)
        t[i].push_back(medianMs(gpu, 2, 5, [&] {
          CHECK_TLC(vs[i].f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), scale, B, H, S));
        }));
    double flops = 4.0 * B * H * S * S * D;
    for (size_t i = 0; i < vs.size(); ++i) {
      std::sort(t[i].begin(), t[i].end());
      std::printf("BENCH attention f16 B4 H32 S4096 D64 full %s %.4f ms %.1f TFLOP/s\n", vs[i].name,
                  t[i][2], flops / t[i][2] / 1e9);
    }
  }
  // Linear attention, D = 64: before / after.
  for (Shape sh : {Shape{4, 32, 4096}, Shape{2, 3, 150}}) {
    int64_t B = sh.B, H = sh.H, S = sh.S, D = 64;
    size_t count = size_t(B * H * S * D);
    DeviceBuffer q(count * 2), k(count * 2), v(count * 2), ref(count * 2), o(count * 2);
    randomBf16(q, count, 7);
    randomBf16(k, count, 8);
    randomBf16(v, count, 9);
    struct V {
      const char *name;
      LaLaunch f;
    };
    std::vector<V> vs = {
        {"before(mma.sync K^T V)", tlc::e_la_before::linear_attention::launch},
        {"after(wgmma transposed A)", tlc::linear_attention::linear_attention::launch}};
    std::vector<uint16_t> want(count), got(count);
    CHECK_TLC(vs[0].f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), ref.ptr(), B, H, S));
    gpu.synchronize();
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), count * 2));
    poison(o, gpu.stream());
    CHECK_TLC(vs[1].f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), B, H, S));
    gpu.synchronize();
    CHECK_CU(cuMemcpyDtoH(got.data(), o.ptr(), count * 2));
    double big = 0;
    for (uint16_t w : want)
      big = std::max(big, double(std::fabs(fromBf16(w))));
    bool fin;
    double worst = worstDiff(got, want, fin);
    std::printf("CHECK linear_attention B%lld H%lld S%lld worst=%.3e of max %.3e %s\n",
                (long long)B, (long long)H, (long long)S, worst, big,
                fin && worst <= 2e-2 * big ? "ok" : "FAIL");
    std::vector<std::vector<double>> t(2);
    for (int r = 0; r < 5; ++r)
      for (int i = 0; i < 2; ++i)
        t[i].push_back(medianMs(gpu, 2, 5, [&] {
          CHECK_TLC(vs[i].f(gpu.stream(), q.ptr(), k.ptr(), v.ptr(), o.ptr(), B, H, S));
        }));
    double chunks = double(B) * H * ((S + 63) / 64);
    double flops = chunks * 8.0 * 64 * 64 * 64;
    for (int i = 0; i < 2; ++i) {
      std::sort(t[i].begin(), t[i].end());
      std::printf("BENCH linear_attention B%lld H%lld S%lld %s %.4f ms %.1f TFLOP/s\n",
                  (long long)B, (long long)H, (long long)S, vs[i].name, t[i][2],
                  flops / t[i][2] / 1e9);
    }
  }
  return 0;
}
