// Session 42, exp50 (issue 13): gemm.tile with the staged rows stored by TMA bulk stores
// (`tmast`, tlc --codegen=tma-stores: one cp.async.bulk.tensor per 16 x 128-byte chunk, issued
// by lane 0, not waited for) against the same rows stored as 16-byte vectors (`vecst`, tlc's
// default: session 41's stores), both against cuBLAS in one process.
#include "CublasPeer.h"
#include "GpuTest.h"
#include "tmast.h"
#include "vecst.h"
#include <cmath>
#include <functional>
using namespace tlc::gputest;

int main(int argc, char **argv) {
  GpuContext gpu;
  struct S {
    int64_t m, n, k;
  };
  std::vector<S> shapes = {
      {8192, 8192, 8192}, {4096, 4096, 4096}, {2048, 2048, 2048}, {1024, 1024, 1024},
      {512, 512, 512},    {4096, 4096, 512},  {8192, 8192, 256},  {4096, 4096, 128},
      {3001, 3000, 1000}, {2000, 3000, 1000}, {6000, 6000, 2000}, {8192, 8192, 512},
      {1000, 1111, 777},  {2048, 2047, 2049}, {4096, 4104, 4096}, {4097, 4097, 4097},
      {4096, 4095, 4096}, {8192, 8191, 8192}, {1024, 1023, 1024}, {1, 4096, 4096},
      {16, 4096, 4096},   {64, 4096, 4096},   {128, 4096, 4096},  {32, 11008, 4096},
      {256, 1024, 1024},  {384, 768, 8192},   {8192, 1024, 64},   {16384, 4096, 256},
      {4096, 4096, 1024}, {2048, 2048, 512},  {5000, 3000, 4000}, {1536, 1536, 4096}};
  if (argc > 1 && (argc - 1) % 3 == 0) {
    shapes.clear();
    for (int i = 1; i < argc; i += 3)
      shapes.push_back({std::atoll(argv[i]), std::atoll(argv[i + 1]), std::atoll(argv[i + 2])});
  }
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, gpu.stream()));
  const char *names[] = {"tmast", "vecst"};
  constexpr int V = 2;
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
    std::vector<std::function<void()>> v = {RUN(tmast::gemm::launch), RUN(vecst::gemm::launch)};
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
    double flops = 2.0 * s.m * s.n * s.k;
    std::printf("BENCH %lldx%lldx%lld sel=%d cublas %.1f us %.0f TF |", (long long)s.m,
                (long long)s.n, (long long)s.k, tmast::gemm::select(s.m, s.k, s.n), pm * 1e3,
                flops / pm * 1e-9);
    for (int i = 0; i < V; ++i) {
      std::printf(" %s %.3f", names[i], pm / t[i][2]);
      logs[i].push_back(std::log(pm / t[i][2]));
    }
    std::printf(" tmast/vecst %.3f\n", t[1][2] / t[0][2]);
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
