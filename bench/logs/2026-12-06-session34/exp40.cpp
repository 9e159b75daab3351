// Session 34, exp40: fp8_gemm_blockwise (kernels/fp8_gemm.tile) built with ring producers (the
// new default: its 256-thread configuration's k loop on a tma_regs ring, tlc::f8new) and with
// --codegen=cp-async-register-rings (the cp.async ring before, tlc::f8old), on the same tensors in
// one process: outputs compared bit for bit, then timed (CUDA events, interleaved, medians of 7
// rounds) through launch() and through configuration 0 (BM = 128) forced.
#include "GpuTest.h"
#include "f8new.h"
#include "f8old.h"
#include <cstring>
#include <functional>
#include <random>
using namespace tlc::gputest;
int main() {
  GpuContext gpu;
  struct S {
    int64_t m, n, k;
  };
  std::vector<S> shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {4096, 7168, 2048},
                           {4096, 2112, 7168}, {1024, 4096, 7168}, {1000, 1000, 1000},
                           {128, 7168, 2048}};
  std::mt19937 rng(5);
  for (S s : shapes) {
    int64_t kb = (s.k + 127) / 128, nb = (s.n + 127) / 128;
    std::vector<uint8_t> ha(s.m * s.k), hb(s.n * s.k);
    for (auto *v : {&ha, &hb})
      for (auto &x : *v) {
        uint8_t mag = rng() % 0x7f; // e4m3 magnitudes below 0x7f (not NaN)
        x = mag | ((rng() & 1) << 7);
      }
    std::vector<float> hsa(s.m * kb), hsb(nb * kb);
    for (auto *v : {&hsa, &hsb})
      for (auto &x : *v)
        x = 0.001f + (rng() % 1000) * 1e-5f;
    DeviceBuffer a(ha.size()), b(hb.size()), sa(hsa.size() * 4), sb(hsb.size() * 4),
        c(s.m * s.n * 2);
    CHECK_CU(cuMemcpyHtoD(a.ptr(), ha.data(), ha.size()));
    CHECK_CU(cuMemcpyHtoD(b.ptr(), hb.data(), hb.size()));
    CHECK_CU(cuMemcpyHtoD(sa.ptr(), hsa.data(), hsa.size() * 4));
    CHECK_CU(cuMemcpyHtoD(sb.ptr(), hsb.data(), hsb.size() * 4));
    using L = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                  CUdeviceptr, int64_t, int64_t, int64_t, int64_t, int64_t);
    auto run = [&](L f) {
      return [&, f] {
        CHECK_TLC(
            f(gpu.stream(), a.ptr(), b.ptr(), sa.ptr(), sb.ptr(), c.ptr(), s.m, s.k, s.n, kb, nb));
      };
    };
    std::vector<std::pair<const char *, std::function<void()>>> v = {
        {"old", run(tlc::f8old::fp8_gemm_blockwise::launch)},
        {"new", run(tlc::f8new::fp8_gemm_blockwise::launch)},
        {"v0old", run(tlc::f8old::fp8_gemm_blockwise::variant0::launch)},
        {"v0new", run(tlc::f8new::fp8_gemm_blockwise::variant0::launch)}};
    size_t cc = s.m * s.n;
    std::vector<uint16_t> got(cc), prev(cc);
    for (size_t i = 0; i < v.size(); ++i) {
      CHECK_CU(cuMemsetD16(c.ptr(), 0x7fc0, cc));
      v[i].second();
      gpu.synchronize();
      CHECK_CU(cuMemcpyDtoH(got.data(), c.ptr(), cc * 2));
      bool finite = true;
      for (uint16_t x : got)
        finite &= (x & 0x7f80) != 0x7f80;
      if (!finite)
        std::printf("CHECK %lldx%lldx%lld %s not finite FAIL\n", (long long)s.m, (long long)s.n,
                    (long long)s.k, v[i].first);
      if (i % 2 == 1 && std::memcmp(got.data(), prev.data(), cc * 2) != 0)
        std::printf("CHECK %lldx%lldx%lld %s differs from %s FAIL\n", (long long)s.m,
                    (long long)s.n, (long long)s.k, v[i].first, v[i - 1].first);
      prev = got;
    }
    std::vector<std::vector<double>> t(v.size());
    for (int r = 0; r < 7; ++r)
      for (size_t i = 0; i < v.size(); ++i)
        t[i].push_back(medianMs(gpu, 2, 5, v[i].second));
    double flops = 2.0 * s.m * s.n * s.k;
    std::printf("FP8BW %lldx%lldx%lld |", (long long)s.m, (long long)s.n, (long long)s.k);
    for (size_t i = 0; i < v.size(); ++i) {
      std::sort(t[i].begin(), t[i].end());
      std::printf(" %s %.1f TF", v[i].first, flops / t[i][3] / 1e9);
    }
    std::printf(" | new/old %.3f v0 %.3f\n", t[0][3] / t[1][3], t[2][3] / t[3][3]);
  }
}
