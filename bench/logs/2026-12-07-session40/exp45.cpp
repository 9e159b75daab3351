// Session 40, exp45 (issue 13): where the small GEMMs' time goes. exp44 timed each launch alone
// between two events (GpuTest.h's medianMs), so a launch's host work (the launcher's lookups,
// tensor maps, cuFuncSetAttribute; cuBLAS's heuristics) sits inside its time whenever the GPU
// is idle: on a 10 us GEMM a few microseconds of host work are tens of percent. Per shape, for
// gemm.tile as shipped (`ship`), gemm.tile without `when M <= 64` (`nowhen`: the wave model
// alone picks 64 x 64 tiles) and cuBLAS, in one process, interleaved, medians of 5 rounds:
// - single: one launch between two events (exp44's figure);
// - burst: 20 launches back to back between two events, per launch (the GPU's time when the
//   host keeps ahead: a stream of work, or a CUDA graph);
// - host: the host's time to issue one launch (std::chrono over the burst's 20 calls).
// Every output is checked against cuBLAS first. Built twice on the development machine, with the
// runtime of the session's start and with its changed one (bench/logs/.../run21.sh).
#include "CublasPeer.h"
#include "GpuTest.h"
#include "gemm.h"
#include "nowhen.h"
#include <chrono>
#include <cmath>
#include <functional>
using namespace tlc::gputest;
namespace G = tlc::gemm::gemm;
namespace NW = nowhen::gemm;

struct Times {
  double single, burst, host; // ms, ms, us
};

static Times timeIt(const GpuContext &gpu, const std::function<void()> &f) {
  Times t{};
  t.single = medianMs(gpu, 2, 5, f);
  constexpr int Burst = 20;
  CUevent start, stop;
  CHECK_CU(cuEventCreate(&start, CU_EVENT_DEFAULT));
  CHECK_CU(cuEventCreate(&stop, CU_EVENT_DEFAULT));
  gpu.synchronize();
  CHECK_CU(cuEventRecord(start, gpu.stream()));
  auto h0 = std::chrono::steady_clock::now();
  for (int i = 0; i < Burst; ++i)
    f();
  auto h1 = std::chrono::steady_clock::now();
  CHECK_CU(cuEventRecord(stop, gpu.stream()));
  CHECK_CU(cuEventSynchronize(stop));
  float ms = 0;
  CHECK_CU(cuEventElapsedTime(&ms, start, stop));
  t.burst = ms / Burst;
  t.host = std::chrono::duration<double, std::micro>(h1 - h0).count() / Burst;
  CHECK_CU(cuEventDestroy(start));
  CHECK_CU(cuEventDestroy(stop));
  return t;
}

// Host microseconds per call of the launcher's pieces (1000 calls each): cuFuncSetAttribute with
// the value already set, a tensor map, the multiprocessor count, the current context's id.
static void hostCosts(const GpuContext &gpu) {
  CUmodule module;
  CUfunction function;
  CHECK_CU(cuModuleLoad(&module, "gemm.fatbin"));
  CHECK_CU(cuModuleGetFunction(&function, module, "gemm__0__tma"));
  DeviceBuffer a(4096 * 4096 * 2);
  auto per = [](auto f) {
    f();
    auto h0 = std::chrono::steady_clock::now();
    for (int i = 0; i < 1000; ++i)
      f();
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - h0)
               .count() /
           1000;
  };
  double attr = per([&] {
    CHECK_CU(cuFuncSetAttribute(function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 196672));
  });
  double map = per([&] {
    alignas(128) CUtensorMap m;
    CHECK_TLC(tlc::rt::encodeTensorMap2D(&m, a.ptr(), 4096, 4096, 4096, 1, 2,
                                         CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 128, 64, 128, "k", "A"));
  });
  double sms = per([&] {
    int n = 0;
    CHECK_TLC(tlc::rt::multiprocessorCount(&n));
  });
  double ctx = per([&] {
    CUcontext c;
    unsigned long long id;
    CHECK_CU(cuCtxGetCurrent(&c));
    CHECK_CU(cuCtxGetId(c, &id));
  });
  std::printf("HOST us per call: cuFuncSetAttribute %.3f, encodeTensorMap2D %.3f, "
              "multiprocessorCount %.3f, cuCtxGetCurrent+cuCtxGetId %.3f\n",
              attr, map, sms, ctx);
  CHECK_CU(cuModuleUnload(module));
  (void)gpu;
}

int main(int argc, char **argv) {
  GpuContext gpu;
  struct S {
    int64_t m, n, k;
  };
  std::vector<S> shapes = {
      {1, 4096, 4096},   {16, 4096, 4096},   {32, 4096, 4096},   {64, 4096, 4096},
      {96, 4096, 4096},  {128, 4096, 4096},  {192, 4096, 4096},  {256, 4096, 4096},
      {128, 8192, 8192}, {96, 4096, 8192},   {128, 4096, 11008}, {8, 2048, 8192},
      {32, 11008, 4096}, {64, 8192, 8192},   {512, 512, 4096},   {512, 512, 512},
      {256, 1024, 1024}, {768, 768, 768},    {1024, 1024, 1024}, {384, 768, 8192},
      {1000, 1112, 776}, {2048, 2048, 2048}, {4096, 4096, 512},  {4096, 4096, 4096}};
  if (argc > 1 && (argc - 1) % 3 == 0) {
    shapes.clear();
    for (int i = 1; i < argc; i += 3)
      shapes.push_back({std::atoll(argv[i]), std::atoll(argv[i + 1]), std::atoll(argv[i + 2])});
  }
  hostCosts(gpu);
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, gpu.stream()));
  const char *names[] = {"ship", "nowhen", "cublas"};
  std::vector<double> logSingle[2], logBurst[2];
  for (S s : shapes) {
    size_t ac = s.m * s.k, bc = s.k * s.n, cc = s.m * s.n;
    DeviceBuffer a(ac * 2), b(bc * 2), c(cc * 2), ref(cc * 2);
    randomBf16(a, ac, 1);
    randomBf16(b, bc, 2);
    std::vector<std::function<void()>> v = {
        [&] { CHECK_TLC(G::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n)); },
        [&] { CHECK_TLC(NW::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n)); },
        [&] {
          cublasRowMajorGemm(handle, s.m, s.n, s.k, a.ptr(), b.ptr(), ref.ptr(), CUDA_R_16BF);
        }};
    v[2]();
    gpu.synchronize();
    std::vector<uint16_t> want(cc), got(cc);
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), cc * 2));
    for (int vi = 0; vi < 2; ++vi) {
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
    std::vector<Times> t[3];
    for (int r = 0; r < 5; ++r)
      for (int i = 0; i < 3; ++i)
        t[i].push_back(timeIt(gpu, v[i]));
    Times m[3];
    for (int i = 0; i < 3; ++i) {
      auto med = [&](double Times::*f) {
        std::vector<double> x;
        for (const Times &y : t[i])
          x.push_back(y.*f);
        std::sort(x.begin(), x.end());
        return x[x.size() / 2];
      };
      m[i] = {med(&Times::single), med(&Times::burst), med(&Times::host)};
    }
    std::printf("BENCH %lldx%lldx%lld sel=%d/%d cublas single %.1f us burst %.1f us host %.1f us |",
                (long long)s.m, (long long)s.n, (long long)s.k, G::select(s.m, s.k, s.n),
                NW::select(s.m, s.k, s.n), m[2].single * 1e3, m[2].burst * 1e3, m[2].host);
    for (int i = 0; i < 2; ++i) {
      std::printf(" %s single %.3f burst %.3f (%.1f us) host %.1f us |", names[i],
                  m[2].single / m[i].single, m[2].burst / m[i].burst, m[i].burst * 1e3, m[i].host);
      logSingle[i].push_back(std::log(m[2].single / m[i].single));
      logBurst[i].push_back(std::log(m[2].burst / m[i].burst));
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  auto geo = [](const std::vector<double> &x) {
    double g = 0;
    for (double y : x)
      g += y;
    return std::exp(g / x.size());
  };
  std::printf("GEOMEAN (%zu shapes): ship single %.3f burst %.3f | nowhen single %.3f burst %.3f\n",
              shapes.size(), geo(logSingle[0]), geo(logBurst[0]), geo(logSingle[1]),
              geo(logBurst[1]));
}
