// A/B: kernels/batched_gemm.tile built by the tlc before its loading producer was written out in
// the tile dialect (old: built by convert-tile-to-nvvm) and after (cur), on shapes whose rows
// TMA cannot read (odd K or N: the launcher takes the __loads entry, its staged or realigned
// copies), one process. Outputs of old and cur must be identical bit for bit.
#include "GpuTest.h"
#include "bcur.h"
#include "bold.h"
#include <cmath>
#include <cstring>
#include <functional>
using namespace tlc::gputest;
int main() {
  GpuContext gpu;
  struct S {
    int64_t nb, m, n, k;
  };
  std::vector<S> shapes = {
      {8, 1024, 1024, 1023}, {8, 1024, 1023, 1024}, {16, 512, 512, 513}, {4, 2048, 2048, 2047}};
  for (S s : shapes) {
    size_t ac = s.nb * s.m * s.k, bc = s.nb * s.k * s.n, cc = s.nb * s.m * s.n;
    DeviceBuffer a(ac * 2), b(bc * 2), c(cc * 2);
    randomBf16(a, ac, 1);
    randomBf16(b, bc, 2);
    std::vector<std::pair<const char *, std::function<void()>>> v = {
        {"old",
         [&] {
           CHECK_TLC(tlc::bold::batched_gemm::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.nb,
                                                     s.m, s.k, s.n));
         }},
        {"cur",
         [&] {
           CHECK_TLC(tlc::bcur::batched_gemm::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.nb,
                                                     s.m, s.k, s.n));
         }},
    };
    std::vector<uint16_t> got(cc), first(cc);
    for (size_t vi = 0; vi < v.size(); ++vi) {
      CHECK_CU(cuMemsetD16(c.ptr(), 0x7fc0, cc));
      v[vi].second();
      gpu.synchronize();
      CHECK_CU(cuMemcpyDtoH(got.data(), c.ptr(), cc * 2));
      bool finite = true;
      for (size_t i = 0; i < cc; ++i)
        finite &= std::isfinite(fromBf16(got[i]));
      bool same = vi == 0 || std::memcmp(first.data(), got.data(), cc * 2) == 0;
      if (vi == 0)
        first = got;
      std::printf("CHECK %lldx(%lldx%lldx%lld) %s %s%s\n", (long long)s.nb, (long long)s.m,
                  (long long)s.n, (long long)s.k, v[vi].first, finite ? "ok" : "FAIL (non-finite)",
                  same ? "" : " DIFFERS-FROM-OLD");
    }
    std::vector<std::vector<double>> t(v.size());
    for (int r = 0; r < 7; ++r)
      for (size_t i = 0; i < v.size(); ++i)
        t[i].push_back(medianMs(gpu, 2, 5, v[i].second));
    double flops = 2.0 * s.nb * s.m * s.n * s.k;
    std::printf("BENCH %lldx(%lldx%lldx%lld) |", (long long)s.nb, (long long)s.m, (long long)s.n,
                (long long)s.k);
    for (size_t i = 0; i < v.size(); ++i) {
      std::sort(t[i].begin(), t[i].end());
      std::printf(" %s %.4f ms %.1f TF |", v[i].first, t[i][3], flops / t[i][3] / 1e9);
    }
    std::printf(" cur/old %.3fx\n", t[0][3] / t[1][3]);
  }
}
