// A/B: the shipped gemm.tile built by the tlc before tile-warp-specialize (old: the TMA producer
// built inside convert-tile-to-nvvm) and after (cur: written out in the tile dialect), and cuBLAS,
// on the same tensors in one process. Outputs of old and cur must be identical bit for bit.
#include "CublasPeer.h"
#include "GpuTest.h"
#include "cur.h"
#include "old.h"
#include <cmath>
#include <cstring>
#include <functional>
using namespace tlc::gputest;
int main(int argc, char **argv) {
  GpuContext gpu;
  struct S {
    int64_t m, n, k;
  };
  std::vector<S> shapes = {{8192, 8192, 8192}, {4096, 4096, 4096}, {2048, 2048, 2048},
                           {3001, 3000, 1000}, {4096, 4096, 512},  {64, 8192, 8192},
                           {5000, 3000, 4000}, {4096, 4104, 4096}};
  if (argc > 1 && (argc - 1) % 3 == 0) {
    shapes.clear();
    for (int i = 1; i < argc; i += 3)
      shapes.push_back({std::atoll(argv[i]), std::atoll(argv[i + 1]), std::atoll(argv[i + 2])});
  }
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, gpu.stream()));
  for (S s : shapes) {
    size_t ac = s.m * s.k, bc = s.k * s.n, cc = s.m * s.n;
    DeviceBuffer a(ac * 2), b(bc * 2), c(cc * 2), ref(cc * 2);
    randomBf16(a, ac, 1);
    randomBf16(b, bc, 2);
    auto peer = [&] {
      cublasRowMajorGemm(handle, s.m, s.n, s.k, a.ptr(), b.ptr(), ref.ptr(), CUDA_R_16BF);
    };
    std::vector<std::pair<const char *, std::function<void()>>> v = {
        {"old",
         [&] {
           CHECK_TLC(
               tlc::old::gemm::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
         }},
        {"cur",
         [&] {
           CHECK_TLC(
               tlc::cur::gemm::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
         }},
    };
    peer();
    gpu.synchronize();
    std::vector<uint16_t> want(cc), got(cc), first(cc);
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), cc * 2));
    for (size_t vi = 0; vi < v.size(); ++vi) {
      auto &[name, f] = v[vi];
      CHECK_CU(cuMemsetD16(c.ptr(), 0x7fc0, cc));
      f();
      gpu.synchronize();
      CHECK_CU(cuMemcpyDtoH(got.data(), c.ptr(), cc * 2));
      double md = 0, mr = 0;
      bool fin = true;
      for (size_t i = 0; i < cc; ++i) {
        float x = fromBf16(got[i]), y = fromBf16(want[i]);
        fin &= std::isfinite(x);
        md = std::max(md, double(std::fabs(x - y)));
        mr = std::max(mr, double(std::fabs(y)));
      }
      bool same = true;
      if (vi == 0)
        first = got;
      else
        same = std::memcmp(first.data(), got.data(), cc * 2) == 0;
      std::printf("CHECK %lldx%lldx%lld %s rel=%.2e %s%s\n", (long long)s.m, (long long)s.n,
                  (long long)s.k, name, md / mr, fin && md / mr < 2e-2 ? "ok" : "FAIL",
                  same ? "" : " DIFFERS-FROM-OLD");
    }
    std::vector<std::vector<double>> t(v.size() + 1);
    for (int r = 0; r < 7; ++r) {
      for (size_t i = 0; i < v.size(); ++i)
        t[i].push_back(medianMs(gpu, 2, 5, v[i].second));
      t[v.size()].push_back(medianMs(gpu, 2, 5, peer));
    }
    double flops = 2.0 * s.m * s.n * s.k;
    for (auto &x : t)
      std::sort(x.begin(), x.end());
    double pm = t[v.size()][3];
    std::printf("BENCH %lldx%lldx%lld cublas %.4f ms %.1f TF |", (long long)s.m, (long long)s.n,
                (long long)s.k, pm, flops / pm / 1e9);
    for (size_t i = 0; i < v.size(); ++i)
      std::printf(" %s %.4f ms %.1f TF %.3fx |", v[i].first, t[i][3], flops / t[i][3] / 1e9,
                  pm / t[i][3]);
    std::printf("\n");
  }
}
