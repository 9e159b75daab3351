// Where stream-K's kernel time goes (experiment builds of gemm.tile, not shipped): e0 as
// shipped, e1 without the partial slots' stores and adds, e2 without the flag waits and
// signals, e3 without either (wrong sums: timing only). dp: e0 with whole tiles.
#include "GpuTest.h"
#include "e0.h"
#include "e1.h"
#include "e2.h"
#include "e3.h"
#include <functional>
using namespace tlc::gputest;
using Fn = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t, int64_t,
                               int64_t);
int main() {
  GpuContext gpu;
  struct S {
    int64_t m, n, k;
    int v;
  };
  Fn fns[4][4] = {{tlc::e0::gemm::variant0::launch, tlc::e0::gemm::variant1::launch,
                   tlc::e0::gemm::variant2::launch, tlc::e0::gemm::variant3::launch},
                  {tlc::e1::gemm::variant0::launch, tlc::e1::gemm::variant1::launch,
                   tlc::e1::gemm::variant2::launch, tlc::e1::gemm::variant3::launch},
                  {tlc::e2::gemm::variant0::launch, tlc::e2::gemm::variant1::launch,
                   tlc::e2::gemm::variant2::launch, tlc::e2::gemm::variant3::launch},
                  {tlc::e3::gemm::variant0::launch, tlc::e3::gemm::variant1::launch,
                   tlc::e3::gemm::variant2::launch, tlc::e3::gemm::variant3::launch}};
  for (S s :
       {S{1000, 1112, 776, 1}, S{3001, 3000, 1000, 0}, S{3001, 3000, 1000, 1}, S{32, 4096, 4096, 3},
        S{512, 3000, 8192, 1}, S{256, 512, 8192, 2}, S{4096, 4104, 4096, 0}}) {
    DeviceBuffer a(s.m * s.k * 2), b(s.k * s.n * 2), c(s.m * s.n * 2);
    randomBf16(a, s.m * s.k, 1);
    randomBf16(b, s.k * s.n, 2);
    std::vector<std::pair<const char *, std::function<void()>>> v;
    auto add = [&](const char *name, int e, bool split) {
      v.push_back({name, [&, e, split] {
                     tlc::rt::setStreamK(split);
                     CHECK_TLC(fns[e][s.v](gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
                   }});
    };
    add("dp", 0, false);
    add("sk", 0, true);
    add("nodata", 1, true);
    add("nowait", 2, true);
    add("neither", 3, true);
    std::vector<std::vector<double>> t(v.size());
    for (int r = 0; r < 5; ++r)
      for (size_t i = 0; i < v.size(); ++i)
        t[i].push_back(medianMs(gpu, 2, 10, v[i].second));
    std::printf("EXP36 %lldx%lldx%lld v%d |", (long long)s.m, (long long)s.n, (long long)s.k, s.v);
    for (size_t i = 0; i < v.size(); ++i) {
      std::sort(t[i].begin(), t[i].end());
      std::printf(" %s %.2f us |", v[i].first, t[i][2] * 1e3);
    }
    std::printf("\n");
  }
}
