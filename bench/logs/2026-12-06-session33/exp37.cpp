// Pairs A/B: the shipped gemm.tile (this build) through its launcher with clusters of two
// (on: B's tiles multicast to both blocks of a pair) and with setClusters(false) (off), each of
// the first three configurations forced, and cuBLAS, on the same tensors in one process (CUDA
// events, interleaved, medians of 7 rounds).
#include "CublasPeer.h"
#include "GpuTest.h"
#include "gemm.h"
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
  for (S s : shapes) {
    size_t ac = s.m * s.k, bc = s.k * s.n, cc = s.m * s.n;
    DeviceBuffer a(ac * 2), b(bc * 2), c(cc * 2), ref(cc * 2);
    randomBf16(a, ac, 1);
    randomBf16(b, bc, 2);
    auto peer = [&] {
      cublasRowMajorGemm(handle, s.m, s.n, s.k, a.ptr(), b.ptr(), ref.ptr(), CUDA_R_16BF);
    };
    auto run = [&](bool pairs, tlc::rt::Status (*f)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr,
                                                    int64_t, int64_t, int64_t)) {
      return [&, pairs, f] {
        tlc::rt::setClusters(pairs);
        CHECK_TLC(f(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
      };
    };
    std::vector<std::pair<const char *, std::function<void()>>> v = {
        {"off", run(false, G::launch)},
        {"on", run(true, G::launch)},
        {"v0off", run(false, G::variant0::launch)},
        {"v0on", run(true, G::variant0::launch)},
        {"v1off", run(false, G::variant1::launch)},
        {"v1on", run(true, G::variant1::launch)},
        {"v2off", run(false, G::variant2::launch)},
        {"v2on", run(true, G::variant2::launch)}};
    peer();
    gpu.synchronize();
    std::vector<uint16_t> want(cc), got(cc), off(cc);
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), cc * 2));
    for (size_t vi = 0; vi < v.size(); ++vi) {
      auto &[name, f] = v[vi];
      CHECK_CU(cuMemsetD16(c.ptr(), 0x7fc0, cc));
      f();
      gpu.synchronize();
      CHECK_CU(cuMemcpyDtoH(got.data(), c.ptr(), cc * 2));
      // Each "on" output is compared bit for bit with the "off" one before it.
      if (vi % 2 == 0)
        off = got;
      else if (std::memcmp(off.data(), got.data(), cc * 2) != 0)
        std::printf("CHECK %lldx%lldx%lld %s differs from off FAIL\n", (long long)s.m,
                    (long long)s.n, (long long)s.k, name);
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
    tlc::rt::setClusters(true);
    double flops = 2.0 * s.m * s.n * s.k;
    for (auto &x : t)
      std::sort(x.begin(), x.end());
    double pm = t[v.size()][3];
    std::printf("BENCH %lldx%lldx%lld sel=%d cublas %.1f TF |", (long long)s.m, (long long)s.n,
                (long long)s.k, G::select(s.m, s.k, s.n), flops / pm / 1e9);
    for (size_t i = 0; i < v.size(); ++i)
      std::printf(" %s %.3f", v[i].first, pm / t[i][3]);
    std::printf("\n");
  }
}
