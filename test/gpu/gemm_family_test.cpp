// The GEMM-family kernels of kernels/ (batched_gemm, grouped_gemm, conv2d, w4a16_gemm,
// w4a16_decode, linear_attention; conv2d_gather of test/gpu/kernels) against double-precision
// references on the host: random inputs (never zero), outputs poisoned (NaN) before the run, ragged
// sizes (not tile multiples), an empty group. Tolerance: bf16/f16 output rounding plus f32
// accumulation, relative to the largest reference value of the case.

#include "GpuTest.h"
#include "batched_gemm.h"
#include "conv2d.h"
#include "conv2d_gather.h"
#include "grouped_gemm.h"
#include "linear_attention.h"
#include "w4a16_decode.h"
#include "w4a16_decode_sm_80.h"
#include "w4a16_gemm.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <tuple>

using namespace tlc::gputest;

namespace {
int failures = 0;

/// Uploads `values` rounded to bf16 (or f16) and replaces them by the rounded values.
DeviceBuffer upload16(std::vector<double> &values, bool f16 = false) {
  DeviceBuffer buffer(values.size() * 2);
  std::vector<uint16_t> h(values.size());
  for (size_t i = 0; i < values.size(); ++i) {
    h[i] = f16 ? toF16(float(values[i])) : toBf16(float(values[i]));
    values[i] = f16 ? fromF16(h[i]) : fromBf16(h[i]);
  }
  CHECK_CU(cuMemcpyHtoD(buffer.ptr(), h.data(), h.size() * 2));
  return buffer;
}

std::vector<double> random(size_t count, uint32_t seed) {
  std::vector<float> f(count);
  randomFill(f, seed);
  return std::vector<double>(f.begin(), f.end());
}

DeviceBuffer poisoned(size_t count) {
  DeviceBuffer buffer(count * 2);
  CHECK_CU(cuMemsetD16(buffer.ptr(), 0x7fc0, count)); // NaN in bf16 and f16
  return buffer;
}

/// Compares `count` bf16/f16 outputs with `want`; entries where `written` is false must still
/// hold the poison.
void check(const char *name, CUdeviceptr got, const std::vector<double> &want, bool f16 = false,
           const std::vector<bool> *written = nullptr) {
  std::vector<uint16_t> h(want.size());
  CHECK_CU(cuMemcpyDtoH(h.data(), got, h.size() * 2));
  double scale = 1e-30, worst = 0;
  for (double w : want)
    scale = std::max(scale, std::fabs(w));
  size_t bad = 0;
  for (size_t i = 0; i < want.size(); ++i) {
    double x = f16 ? fromF16(h[i]) : fromBf16(h[i]);
    if (written && !(*written)[i]) {
      bad += !std::isnan(x);
      continue;
    }
    double err = std::isfinite(x) ? std::fabs(x - want[i]) / scale : INFINITY;
    worst = std::max(worst, err);
    bad += err > 0.02;
  }
  std::printf("%s %s: max error %.2e of max |ref| %.3g, %zu bad of %zu\n", bad ? "FAIL" : "PASS",
              name, worst, scale, bad, want.size());
  failures += bad != 0;
}
} // namespace

int main() {
  skipIfNoGpu();
  GpuContext gpu;

  // batched_gemm: 3 entries of 130 x 75 x 200 (ragged in every dimension).
  {
    int64_t nb = 3, m = 130, n = 75, k = 200;
    auto a = random(nb * m * k, 1), b = random(nb * k * n, 2);
    DeviceBuffer da = upload16(a), db = upload16(b), dc = poisoned(nb * m * n);
    CHECK_TLC(tlc::batched_gemm::launch(gpu.stream(), da.ptr(), db.ptr(), dc.ptr(), nb, m, k, n));
    gpu.synchronize();
    std::vector<double> want(nb * m * n);
    for (int64_t e = 0; e < nb; ++e)
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t p = 0; p < k; ++p)
            s += a[(e * m + i) * k + p] * b[(e * k + p) * n + j];
          want[(e * m + i) * n + j] = s;
        }
    check("batched_gemm 3x(130x75x200)", dc.ptr(), want);
  }

  // grouped_gemm: sizes {70, 0, 200, -5 (empty), 31} over M = 310 rows (9 rows in no group).
  {
    int64_t m = 310, n = 140, k = 96;
    std::vector<int32_t> sizes = {70, 0, 200, -5, 31};
    int64_t g = int64_t(sizes.size());
    auto a = random(m * k, 3), w = random(g * k * n, 4);
    DeviceBuffer da = upload16(a), dw = upload16(w), dc = poisoned(m * n), ds(g * 4);
    CHECK_CU(cuMemcpyHtoD(ds.ptr(), sizes.data(), g * 4));
    CHECK_TLC(tlc::grouped_gemm::launch(gpu.stream(), da.ptr(), dw.ptr(), ds.ptr(), dc.ptr(), m, k,
                                        g, n));
    gpu.synchronize();
    std::vector<double> want(m * n, 0.0);
    std::vector<bool> written(m * n, false);
    int64_t row = 0;
    for (int64_t e = 0; e < g; ++e) {
      int64_t rows = std::min<int64_t>(std::max(sizes[e], 0), m - row);
      for (int64_t i = row; i < row + rows; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t p = 0; p < k; ++p)
            s += a[i * k + p] * w[(e * k + p) * n + j];
          want[i * n + j] = s;
          written[i * n + j] = true;
        }
      row += rows;
    }
    check("grouped_gemm sizes {70, 0, 200, -5, 31} of 310 rows", dc.ptr(), want, false, &written);
  }

  // conv2d (tap-wise tile copies) and conv2d_gather (the im2col gathered by `parallel`), 3x3,
  // padding 1, on the same inputs: channels that are not a multiple of BK (24: one partial
  // block per tap; 72: a full and a partial one), rows longer than the 64-pixel tile (W = 70:
  // two tiles per row, the second ragged), a single pixel, output channels not a multiple of
  // the tile, 20 channels (pixel rows of 40 bytes: not 16-byte aligned).
  struct Conv {
    int64_t nb, h, w, ci, co;
  };
  for (Conv c : {Conv{2, 9, 11, 24, 40}, Conv{1, 5, 70, 72, 136}, Conv{3, 1, 1, 8, 16},
                 Conv{2, 6, 66, 64, 128}, Conv{1, 4, 9, 20, 24}}) {
    int64_t r = 3, pad = 1;
    int64_t kk = r * r * c.ci, mm = c.nb * c.h * c.w;
    auto x = random(mm * c.ci, 5), wt = random(kk * c.co, 6);
    DeviceBuffer dx = upload16(x), dw = upload16(wt), dy = poisoned(mm * c.co),
                 dg = poisoned(mm * c.co);
    CHECK_TLC(tlc::conv2d::launch(gpu.stream(), dx.ptr(), dw.ptr(), dy.ptr(), c.nb, c.h, c.w, c.ci,
                                  kk, c.co));
    CHECK_TLC(tlc::conv2d_gather::launch(gpu.stream(), dx.ptr(), dw.ptr(), dg.ptr(), c.nb, c.h, c.w,
                                         c.ci, kk, c.co, mm));
    gpu.synchronize();
    std::vector<double> want(mm * c.co, 0.0);
    for (int64_t b = 0; b < c.nb; ++b)
      for (int64_t y = 0; y < c.h; ++y)
        for (int64_t xx = 0; xx < c.w; ++xx)
          for (int64_t o = 0; o < c.co; ++o) {
            double s = 0;
            for (int64_t dy2 = 0; dy2 < r; ++dy2)
              for (int64_t dx2 = 0; dx2 < r; ++dx2) {
                int64_t sy = y + dy2 - pad, sx = xx + dx2 - pad;
                if (sy < 0 || sy >= c.h || sx < 0 || sx >= c.w)
                  continue;
                for (int64_t ch = 0; ch < c.ci; ++ch)
                  s += x[((b * c.h + sy) * c.w + sx) * c.ci + ch] *
                       wt[((dy2 * r + dx2) * c.ci + ch) * c.co + o];
              }
            want[((b * c.h + y) * c.w + xx) * c.co + o] = s;
          }
    char name[96];
    std::snprintf(name, sizeof name, "conv2d %lldx%lldx%lldx%lld -> %lld, 3x3, pad 1",
                  (long long)c.nb, (long long)c.h, (long long)c.w, (long long)c.ci,
                  (long long)c.co);
    check(name, dy.ptr(), want);
    std::snprintf(name, sizeof name, "conv2d_gather %lldx%lldx%lldx%lld -> %lld, 3x3, pad 1",
                  (long long)c.nb, (long long)c.h, (long long)c.w, (long long)c.ci,
                  (long long)c.co);
    check(name, dg.ptr(), want);
  }

  // w4a16_gemm: M = 37, K = 384 (3 scale groups), N = 200; M = 5, K = 1000 (a partial last k
  // step and scale group), N = 333 (rows of Bq and Sc not 16-byte aligned); M = 130, K = 520,
  // N = 72; M = 600, K = 384, N = 136; the launcher's choice, then each configuration (BMQ = 16,
  // 256 with scaled weights, 128 with two steps per iteration, 64). The products of the integer
  // weights are exact and scaled in f32 (the reference is (q - 8) * scale unrounded); the scaled
  // weights round to f16.
  using W4a16Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                          CUdeviceptr, int64_t, int64_t, int64_t, int64_t, int64_t);
  for (auto [what, launch] : {std::pair<const char *, W4a16Launch>{"", tlc::w4a16_gemm::launch},
                              {" BMQ=16", tlc::w4a16_gemm::w4a16_gemm::variant0::launch},
                              {" BMQ=256 WSCALED", tlc::w4a16_gemm::w4a16_gemm::variant1::launch},
                              {" BMQ=128 STEPS2", tlc::w4a16_gemm::w4a16_gemm::variant2::launch},
                              {" BMQ=64", tlc::w4a16_gemm::w4a16_gemm::variant3::launch}})
    for (auto [m, k, n] : {std::tuple<int64_t, int64_t, int64_t>{37, 384, 200},
                           {5, 1000, 333},
                           {130, 520, 72},
                           {600, 384, 136}}) {
      int64_t gs = 128, kg = (k + gs - 1) / gs;
      auto a = random(m * k, 7), sc = random(kg * n, 8);
      std::mt19937 gen(9);
      std::vector<uint8_t> bq(k / 2 * n);
      for (uint8_t &v : bq)
        v = uint8_t(gen());
      DeviceBuffer da = upload16(a, true), dsc = upload16(sc, true), dq(bq.size()),
                   dc = poisoned(m * n);
      CHECK_CU(cuMemcpyHtoD(dq.ptr(), bq.data(), bq.size()));
      CHECK_TLC(launch(gpu.stream(), da.ptr(), dq.ptr(), dsc.ptr(), dc.ptr(), m, k, k / 2, n, kg));
      gpu.synchronize();
      std::vector<double> want(m * n);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          double s = 0;
          for (int64_t p = 0; p < k; ++p) {
            uint8_t byte = bq[(p / 2) * n + j];
            int q = p % 2 == 0 ? byte % 16 : byte / 16;
            s += a[i * k + p] * (q - 8) * sc[(p / gs) * n + j];
          }
          want[i * n + j] = s;
        }
      std::string name = "w4a16_gemm " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                         std::to_string(k) + what;
      check(name.c_str(), dc.ptr(), want, true);
    }

  // w4a16_decode (split, then combine), sm_90a and sm_80 builds: few rows (1, 5, 16), more than
  // one row tile (M = 19), K not a multiple of the 128-row step (1000), N odd (333: rows of Bq and
  // Sc not 16-byte aligned), splits that do not divide the steps and one split with no steps
  // (K = 2048 is 16 steps: NS = 5 gives 4, 4, 4, 4, 0). The products of the integer weights are
  // exact and scaled in f32: the reference is (q - 8) * scale unrounded.
  struct DecodeCase {
    int64_t m, k, n, ns;
  };
  using SplitLaunch =
      tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t,
                          int64_t, int64_t, int64_t, int64_t, int64_t);
  using CombineLaunch =
      tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, int64_t, int64_t, int64_t);
  struct DecodeBuild {
    const char *what;
    SplitLaunch split;
    CombineLaunch combine;
  };
  for (DecodeBuild build :
       {DecodeBuild{"", tlc::w4a16_decode::w4a16_decode_split::launch,
                    tlc::w4a16_decode::w4a16_decode_combine::launch},
        DecodeBuild{" sm_80", tlc::w4a16_decode_sm_80::w4a16_decode_split::launch,
                    tlc::w4a16_decode_sm_80::w4a16_decode_combine::launch}})
    for (DecodeCase dc : {DecodeCase{1, 1000, 333, 3}, DecodeCase{5, 2048, 200, 5},
                          DecodeCase{16, 384, 256, 1}, DecodeCase{19, 1000, 130, 2}}) {
      int64_t gs = 128, kg = (dc.k + gs - 1) / gs, kh = dc.k / 2;
      auto a = random(dc.m * dc.k, 17), sc = random(kg * dc.n, 18);
      std::mt19937 gen(19);
      std::vector<uint8_t> bq(kh * dc.n);
      for (uint8_t &v : bq)
        v = uint8_t(gen());
      DeviceBuffer da = upload16(a, true), dsc = upload16(sc, true), dq(bq.size()),
                   dp(dc.ns * dc.m * dc.n * 4), dcc = poisoned(dc.m * dc.n);
      CHECK_CU(cuMemcpyHtoD(dq.ptr(), bq.data(), bq.size()));
      CHECK_CU(cuMemsetD32(dp.ptr(), 0x7fc00000, dc.ns * dc.m * dc.n)); // NaN partials
      CHECK_TLC(build.split(gpu.stream(), da.ptr(), dq.ptr(), dsc.ptr(), dp.ptr(), dc.m, dc.k, kh,
                            dc.n, kg, dc.ns));
      CHECK_TLC(build.combine(gpu.stream(), dp.ptr(), dcc.ptr(), dc.ns, dc.m, dc.n));
      gpu.synchronize();
      std::vector<double> want(dc.m * dc.n);
      for (int64_t i = 0; i < dc.m; ++i)
        for (int64_t j = 0; j < dc.n; ++j) {
          double s = 0;
          for (int64_t p = 0; p < dc.k; ++p) {
            uint8_t byte = bq[(p / 2) * dc.n + j];
            int q = p % 2 == 0 ? byte % 16 : byte / 16;
            s += a[i * dc.k + p] * (q - 8) * sc[(p / gs) * dc.n + j];
          }
          want[i * dc.n + j] = s;
        }
      std::string name = "w4a16_decode " + std::to_string(dc.m) + "x" + std::to_string(dc.n) + "x" +
                         std::to_string(dc.k) + " NS=" + std::to_string(dc.ns) + build.what;
      check(name.c_str(), dcc.ptr(), want, true);
    }

  // linear_attention: B = 2, H = 3, S = 150 (a partial last chunk), D = 64.
  {
    int64_t b = 2, h = 3, s = 150, d = 64;
    size_t count = b * h * s * d;
    auto q = random(count, 10), kk = random(count, 11), v = random(count, 12);
    for (double *p : {q.data(), kk.data(), v.data()})
      for (size_t i = 0; i < count; ++i)
        p[i] *= 0.25; // keeps the running sums within bf16's comfortable range
    DeviceBuffer dq = upload16(q), dk = upload16(kk), dv = upload16(v), doo = poisoned(count);
    CHECK_TLC(tlc::linear_attention::launch(gpu.stream(), dq.ptr(), dk.ptr(), dv.ptr(), doo.ptr(),
                                            b, h, s));
    gpu.synchronize();
    std::vector<double> want(count, 0.0);
    for (int64_t bh = 0; bh < b * h; ++bh)
      for (int64_t t = 0; t < s; ++t)
        for (int64_t u = 0; u <= t; ++u) {
          double dot = 0;
          for (int64_t c = 0; c < d; ++c)
            dot += q[(bh * s + t) * d + c] * kk[(bh * s + u) * d + c];
          for (int64_t c = 0; c < d; ++c)
            want[(bh * s + t) * d + c] += dot * v[(bh * s + u) * d + c];
        }
    check("linear_attention 2x3x150x64", doo.ptr(), want);
  }
  return failures ? 1 : 0;
}
