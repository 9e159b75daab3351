// A/B: wgmma group kept in flight across iterations (fl*) vs waited each step (base*), cuBLAS.
#include "CublasPeer.h"
#include "GpuTest.h"
#include "base128.h"
#include "base256.h"
#include "fl128.h"
#include "fl256.h"
#include <cmath>
#include <functional>
using namespace tlc::gputest;
int main(int argc, char **argv) {
  GpuContext gpu;
  struct S {
    int64_t m, n, k;
  };
  std::vector<S> shapes = {{4096, 4096, 4096}, {4096, 4096, 4000}, {5000, 4096, 4096},
                           {4096, 3000, 4096}, {5000, 3000, 4000}, {6000, 6000, 2000},
                           {6144, 6144, 2048}, {4096, 4096, 4032}};
  // Arguments: M N K triples (README.txt lists each run's); without, run 7's shapes.
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
        {"base128",
         [&] {
           CHECK_TLC(tlc::base128::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
         }},
        {"fl128",
         [&] {
           CHECK_TLC(tlc::fl128::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
         }},
        {"base256",
         [&] {
           CHECK_TLC(tlc::base256::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
         }},
        {"fl256",
         [&] {
           CHECK_TLC(tlc::fl256::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
         }},
    };
    peer();
    gpu.synchronize();
    std::vector<uint16_t> want(cc), got(cc);
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), cc * 2));
    for (auto &[name, f] : v) {
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
      std::printf("CHECK %lldx%lldx%lld %s rel=%.2e %s\n", (long long)s.m, (long long)s.n,
                  (long long)s.k, name, md / mr, fin && md / mr < 2e-2 ? "ok" : "FAIL");
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
