// Pairs A/B after the CTA-scope release: the shipped gemm.tile (default build, tlc::gemm) and the
// same file built with --cluster-pairs (tlc::gemmp, launched in clusters of two), cuBLAS, on the
// same tensors in one process (CUDA events, interleaved, medians of 7 rounds). Also each of the
// first two configurations forced, in both builds. Every output is checked against cuBLAS and
// each pairs output compared bit for bit with the default build's.
#include "CublasPeer.h"
#include "GpuTest.h"
#include "gemm.h"
#include "gemmp.h"
#include <cmath>
#include <cstring>
#include <functional>
using namespace tlc::gputest;
using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t,
                                   int64_t, int64_t);
int main(int argc, char **argv) {
  GpuContext gpu;
  struct S {
    int64_t m, n, k;
  };
  std::vector<S> shapes = {{8192, 8192, 8192}, {4096, 4096, 4096}, {2048, 2048, 2048},
                           {3001, 3000, 1000}, {4096, 4096, 512},  {64, 8192, 8192},
                           {5000, 3000, 4000}, {4096, 4104, 4096}, {1000, 1112, 776},
                           {32, 4096, 4096},   {1024, 3000, 4096}, {512, 3000, 8192},
                           {2000, 3000, 1000}, {6000, 6000, 2000}, {16, 8192, 8192},
                           {8192, 8192, 1024}, {256, 512, 8192},   {2048, 2047, 2049}};
  if (argc > 1 && (argc - 1) % 3 == 0) {
    shapes.clear();
    for (int i = 1; i < argc; i += 3)
      shapes.push_back({std::atoll(argv[i]), std::atoll(argv[i + 1]), std::atoll(argv[i + 2])});
  }
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, gpu.stream()));
  namespace G = tlc::gemm::gemm;
  namespace P = tlc::gemmp::gemm;
  std::vector<double> logBase, logPairs;
  for (S s : shapes) {
    size_t ac = s.m * s.k, bc = s.k * s.n, cc = s.m * s.n;
    DeviceBuffer a(ac * 2), b(bc * 2), c(cc * 2), ref(cc * 2);
    randomBf16(a, ac, 1);
    randomBf16(b, bc, 2);
    auto peer = [&] {
      cublasRowMajorGemm(handle, s.m, s.n, s.k, a.ptr(), b.ptr(), ref.ptr(), CUDA_R_16BF);
    };
    auto run = [&](Launch f) {
      return [&, f] { CHECK_TLC(f(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n)); };
    };
    // Even entries: the default build; odd: the pairs build of the same configuration.
    std::vector<std::pair<const char *, std::function<void()>>> v = {
        {"base", run(G::launch)},
        {"pairs", run(P::launch)},
        {"v0base", run(G::variant0::launch)},
        {"v0pairs", run(P::variant0::launch)},
        {"v1base", run(G::variant1::launch)},
        {"v1pairs", run(P::variant1::launch)}};
    peer();
    gpu.synchronize();
    std::vector<uint16_t> want(cc), got(cc), base(cc);
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), cc * 2));
    for (size_t vi = 0; vi < v.size(); ++vi) {
      auto &[name, f] = v[vi];
      CHECK_CU(cuMemsetD16(c.ptr(), 0x7fc0, cc));
      f();
      gpu.synchronize();
      CHECK_CU(cuMemcpyDtoH(got.data(), c.ptr(), cc * 2));
      if (vi % 2 == 0)
        base = got;
      else if (std::memcmp(base.data(), got.data(), cc * 2) != 0)
        std::printf("NOTE %lldx%lldx%lld %s not bit-identical to the default build\n",
                    (long long)s.m, (long long)s.n, (long long)s.k, name);
      double md = 0, mr = 0;
      bool fin = true;
      for (size_t i = 0; i < cc; ++i) {
        float x = fromBf16(got[i]), y = fromBf16(want[i]);
        fin &= std::isfinite(x);
        md = std::max(md, double(std::fabs(x - y)));
        mr = std::max(mr, double(std::fabs(y)));
      }
      if (!(fin && md / mr < 2e-2))
        std::printf("CHECK %lldx%lldx%lld %s rel=%.2e FAIL\n", (long long)s.m, (long long)s.n,
                    (long long)s.k, name, md / mr);
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
    logBase.push_back(std::log(pm / t[0][3]));
    logPairs.push_back(std::log(pm / t[1][3]));
    std::printf("BENCH %lldx%lldx%lld sel=%d/%d cublas %.1f TF |", (long long)s.m, (long long)s.n,
                (long long)s.k, G::select(s.m, s.k, s.n), P::select(s.m, s.k, s.n),
                flops / pm / 1e9);
    for (size_t i = 0; i < v.size(); ++i)
      std::printf(" %s %.3f", v[i].first, pm / t[i][3]);
    std::printf("\n");
  }
  double gb = 0, gp = 0;
  for (size_t i = 0; i < logBase.size(); ++i)
    gb += logBase[i], gp += logPairs[i];
  std::printf("GEOMEAN base %.3f pairs %.3f over %zu shapes\n", std::exp(gb / logBase.size()),
              std::exp(gp / logPairs.size()), logBase.size());
}
