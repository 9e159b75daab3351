// Session 37, exp43 (issue 13): does a 128 x 192 tile configuration fill the multiprocessors
// where 128 x 256 tiles leave a wave short (1024 x 3000: 96 tiles of 128 x 256 on 132 SMs, 128 of
// 128 x 192)? gemm.tile as shipped (tlc::gemm) and with (BM = 128, BN = 192, STAGES = 5) as its
// second configuration (tlc::gemm192), cuBLAS, on the same tensors in one process (CUDA events,
// interleaved, medians of 5 rounds). Columns: the shipped launch; each configuration forced;
// the shipped launch with stream-K on; "model": gemm192's configuration chosen by the rule
// time ~ ceil(b / P) / sqrt(b) (per-block cost growing as the square root of its share of the
// work, which fits the measured 1.46x per flop of 128 x 128 tiles and 2x of 64 x 128), an
// earlier configuration kept unless a later one is 1.1x faster by it. Every output is checked
// against cuBLAS.
#include "CublasPeer.h"
#include "GpuTest.h"
#include "gemm.h"
#include "gemm192.h"
#include <cmath>
#include <cstring>
#include <functional>
using namespace tlc::gputest;
using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t,
                                   int64_t, int64_t);
namespace G = tlc::gemm::gemm;
namespace H = tlc::gemm192::gemm;

// gemm192's configurations: (BM, BN); the last only where M <= 64.
static const int64_t kTiles[5][2] = {{128, 256}, {128, 192}, {128, 128}, {64, 128}, {64, 64}};
static const Launch kVariants[5] = {H::variant0::launch, H::variant1::launch, H::variant2::launch,
                                    H::variant3::launch, H::variant4::launch};

static int modelChoice(int64_t m, int64_t n, int sms) {
  if (m <= 64)
    return 4;
  int best = -1;
  double bestT = 0;
  for (int i = 0; i < 4; ++i) {
    double b = double((m + kTiles[i][0] - 1) / kTiles[i][0]) *
               double((n + kTiles[i][1] - 1) / kTiles[i][1]);
    double t = std::ceil(b / sms) / std::sqrt(b);
    if (best < 0 || t * 1.1 < bestT)
      best = i, bestT = t;
  }
  return best;
}

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
                           {8192, 8192, 1024}, {256, 512, 8192},   {2048, 2047, 2049},
                           {1536, 1536, 4096}, {3072, 1000, 2048}, {768, 4096, 4096}};
  if (argc > 1 && (argc - 1) % 3 == 0) {
    shapes.clear();
    for (int i = 1; i < argc; i += 3)
      shapes.push_back({std::atoll(argv[i]), std::atoll(argv[i + 1]), std::atoll(argv[i + 2])});
  }
  int sms = 0;
  {
    CUdevice dev;
    CHECK_CU(cuCtxGetDevice(&dev));
    CHECK_CU(cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev));
  }
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, gpu.stream()));
  std::vector<const char *> names = {"ship", "v256", "v192", "v128", "sk", "model"};
  std::vector<std::vector<double>> logs(names.size() + 1);
  for (S s : shapes) {
    size_t ac = s.m * s.k, bc = s.k * s.n, cc = s.m * s.n;
    DeviceBuffer a(ac * 2), b(bc * 2), c(cc * 2), ref(cc * 2);
    randomBf16(a, ac, 1);
    randomBf16(b, bc, 2);
    auto peer = [&] {
      cublasRowMajorGemm(handle, s.m, s.n, s.k, a.ptr(), b.ptr(), ref.ptr(), CUDA_R_16BF);
    };
    auto run = [&](Launch f, bool sk) {
      return [&, f, sk] {
        if (sk)
          tlc::rt::setStreamK(true);
        CHECK_TLC(f(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
        if (sk)
          tlc::rt::setStreamK(false);
      };
    };
    int mc = modelChoice(s.m, s.n, sms);
    std::vector<std::function<void()>> v = {run(G::launch, false),
                                            run(H::variant0::launch, false),
                                            run(H::variant1::launch, false),
                                            run(G::variant1::launch, false),
                                            run(G::launch, true),
                                            run(kVariants[mc], false)};
    peer();
    gpu.synchronize();
    std::vector<uint16_t> want(cc), got(cc);
    CHECK_CU(cuMemcpyDtoH(want.data(), ref.ptr(), cc * 2));
    for (size_t vi = 0; vi < v.size(); ++vi) {
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
    std::vector<std::vector<double>> t(v.size() + 1);
    for (int r = 0; r < 5; ++r) {
      for (size_t i = 0; i < v.size(); ++i)
        t[i].push_back(medianMs(gpu, 2, 5, v[i]));
      t[v.size()].push_back(medianMs(gpu, 2, 5, peer));
    }
    double flops = 2.0 * s.m * s.n * s.k;
    for (auto &x : t)
      std::sort(x.begin(), x.end());
    double pm = t[v.size()][2];
    std::printf("BENCH %lldx%lldx%lld sel=%d/%d model=%d cublas %.1f TF |", (long long)s.m,
                (long long)s.n, (long long)s.k, G::select(s.m, s.k, s.n), H::select(s.m, s.k, s.n),
                mc, flops / pm / 1e9);
    for (size_t i = 0; i < v.size(); ++i) {
      std::printf(" %s %.3f", names[i], pm / t[i][2]);
      logs[i].push_back(std::log(pm / t[i][2]));
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  std::printf("GEOMEAN over %zu shapes:", shapes.size());
  for (size_t i = 0; i < names.size(); ++i) {
    double g = 0;
    for (double x : logs[i])
      g += x;
    std::printf(" %s %.3f", names[i], std::exp(g / logs[i].size()));
  }
  std::printf("\n");
}
