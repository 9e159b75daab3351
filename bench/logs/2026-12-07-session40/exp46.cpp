// Session 40, exp46 (issue 13): skinny M on wgmma with BN = 32. tile-assign-mma-layouts now lets
// wgmma read a row-major B whose tile rows are 64 or 32 bytes (BN = 32 or 16 bf16: one column
// block of the 64- or 32-byte swizzle) instead of sending such gemms to mma.sync. Builds of
// gemm.tile's gemm kernel (bench/logs/2026-12-07-session40/e46/*.tile, sm_90a): `ship` as shipped;
// `nowhen` without `when M <= 64` (the wave model alone picks 64 x 64 tiles); `n32when` adds 64 x
// 32 tiles (one warpgroup, 8 stages) `when M <= 64`; `n32` adds them without `when`, and a 64 x 32
// x 128 configuration (variant 6, never chosen: forced). Against cuBLAS in one process (CUDA
// events, one launch each, interleaved, medians of 5 rounds of 5); every output checked first.
#include "CublasPeer.h"
#include "GpuTest.h"
#include "n32.h"
#include "n32when.h"
#include "nowhen.h"
#include "ship.h"
#include <cmath>
#include <functional>
using namespace tlc::gputest;

int main(int argc, char **argv) {
  GpuContext gpu;
  struct S {
    int64_t m, n, k;
  };
  std::vector<S> shapes = {
      {1, 4096, 4096},    {16, 4096, 4096},   {32, 4096, 4096},   {64, 4096, 4096},
      {96, 4096, 4096},   {128, 4096, 4096},  {192, 4096, 4096},  {256, 4096, 4096},
      {128, 8192, 8192},  {96, 4096, 8192},   {128, 4096, 11008}, {8, 2048, 8192},
      {32, 11008, 4096},  {64, 8192, 8192},   {16, 8192, 8192},   {1, 8192, 8192},
      {32, 4096, 11008},  {64, 14336, 4096},  {512, 512, 4096},   {512, 512, 512},
      {256, 1024, 1024},  {768, 768, 768},    {1024, 1024, 1024}, {384, 768, 8192},
      {2048, 2048, 2048}, {4096, 4096, 4096}, {37, 4104, 4096},   {64, 3000, 1000},
      {1, 4097, 333},     {50, 8190, 2048}};
  if (argc > 1 && (argc - 1) % 3 == 0) {
    shapes.clear();
    for (int i = 1; i < argc; i += 3)
      shapes.push_back({std::atoll(argv[i]), std::atoll(argv[i + 1]), std::atoll(argv[i + 2])});
  }
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, gpu.stream()));
  const char *names[] = {"ship", "nowhen", "n32when", "n32", "f64x64", "f64x32", "f64x32k128"};
  constexpr int V = 7;
  std::vector<double> logs[V];
  for (S s : shapes) {
    size_t ac = s.m * s.k, bc = s.k * s.n, cc = s.m * s.n;
    DeviceBuffer a(ac * 2), b(bc * 2), c(cc * 2), ref(cc * 2);
    randomBf16(a, ac, 1);
    randomBf16(b, bc, 2);
    auto peer = [&] {
      cublasRowMajorGemm(handle, s.m, s.n, s.k, a.ptr(), b.ptr(), ref.ptr(), CUDA_R_16BF);
    };
#define RUN(f) [&] { CHECK_TLC(f(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n)); }
    std::vector<std::function<void()>> v = {
        RUN(ship::gemm::launch),          RUN(nowhen::gemm::launch),
        RUN(n32when::gemm::launch),       RUN(n32::gemm::launch),
        RUN(n32::gemm::variant4::launch), RUN(n32::gemm::variant5::launch),
        RUN(n32::gemm::variant6::launch)};
#undef RUN
    peer();
    gpu.synchronize();
    std::vector<uint16_t> want(cc), got(cc);
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), cc * 2));
    for (int vi = 0; vi < V; ++vi) {
      CHECK_CU(cuMemsetD16(c.ptr(), 0x7fc0, cc));
      v[vi]();
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
      if (!(fin && md / mr < 2e-2))
        std::printf("CHECK %lldx%lldx%lld %s rel=%.2e FAIL\n", (long long)s.m, (long long)s.n,
                    (long long)s.k, names[vi], md / mr);
    }
    std::vector<std::vector<double>> t(V + 1);
    for (int r = 0; r < 5; ++r) {
      for (int i = 0; i < V; ++i)
        t[i].push_back(medianMs(gpu, 2, 5, v[i]));
      t[V].push_back(medianMs(gpu, 2, 5, peer));
    }
    for (auto &x : t)
      std::sort(x.begin(), x.end());
    double pm = t[V][2];
    std::printf("BENCH %lldx%lldx%lld sel=%d/%d/%d/%d cublas %.1f us |", (long long)s.m,
                (long long)s.n, (long long)s.k, ship::gemm::select(s.m, s.k, s.n),
                nowhen::gemm::select(s.m, s.k, s.n), n32when::gemm::select(s.m, s.k, s.n),
                n32::gemm::select(s.m, s.k, s.n), pm * 1e3);
    for (int i = 0; i < V; ++i) {
      std::printf(" %s %.3f", names[i], pm / t[i][2]);
      logs[i].push_back(std::log(pm / t[i][2]));
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  std::printf("GEOMEAN (%zu shapes):", shapes.size());
  for (int i = 0; i < V; ++i) {
    double g = 0;
    for (double x : logs[i])
      g += x;
    std::printf(" %s %.3f", names[i], std::exp(g / logs[i].size()));
  }
  std::printf("\n");
}
