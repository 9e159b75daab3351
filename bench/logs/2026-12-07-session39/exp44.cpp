// Session 38, exp44 (issue 13): three questions on gemm.tile, against cuBLAS on the same tensors
// in one process (CUDA events, interleaved, medians of 5 rounds; every output checked against
// cuBLAS first):
// - cluster pairs (tlc --cluster-pairs: two blocks of adjacent rows share B's tile by TMA
//   multicast) since their releases became CTA-scope: `cp` is gemm.tile built with it, through
//   the launcher's choice (clusters on), against `ship`, the shipped build.
// - skinny M: 64 x 64 tiles leave half the multiprocessors idle at 32 x 4096 x 4096 (64
//   blocks). `s64x64`, `s64x32`, `s64x128`: gemm.tile's loop with 64-row tiles on one warpgroup
//   and BN = 64, 32 (mma.sync: wgmma wants BN a multiple of 64 here), 128 (build `skinny`, each
//   configuration forced; shapes with M <= 256).
// - 256 x 128 tiles (two consumer warpgroups of 128 rows; build `wide`, 4 and 3 stages, forced;
//   shapes with M > 256): a different block count where 128 x 256 tiles leave a wave short
//   (4096 x 4104: 544 tiles of 128 x 256, 5 rounds on 132 multiprocessors; 528 of 256 x 128, 4).
// - stream-K on few-tile, long-K shapes: `sk`, the shipped launch with stream-K on; `auto`,
//   with tlc::rt::StreamK::Automatic (split only where tlc::rt::streamKPays holds).
#include "CublasPeer.h"
#include "GpuTest.h"
#include "gemm.h"
#include "gemmcp.h"
#include "skinny.h"
#include "wide.h"
#include <cmath>
#include <cstring>
#include <functional>
using namespace tlc::gputest;
using Launch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t,
                                   int64_t, int64_t);
namespace G = tlc::gemm::gemm;
namespace CP = gemmcp::gemm;
namespace SK = skinny::gemm;
namespace W = wide::gemm;

int main(int argc, char **argv) {
  GpuContext gpu;
  struct S {
    int64_t m, n, k;
  };
  std::vector<S> shapes = {// exp43's sweep
                           {8192, 8192, 8192},
                           {4096, 4096, 4096},
                           {2048, 2048, 2048},
                           {3001, 3000, 1000},
                           {4096, 4096, 512},
                           {64, 8192, 8192},
                           {5000, 3000, 4000},
                           {4096, 4104, 4096},
                           {1000, 1112, 776},
                           {32, 4096, 4096},
                           {1024, 3000, 4096},
                           {512, 3000, 8192},
                           {2000, 3000, 1000},
                           {6000, 6000, 2000},
                           {16, 8192, 8192},
                           {8192, 8192, 1024},
                           {256, 512, 8192},
                           {2048, 2047, 2049},
                           {1536, 1536, 4096},
                           {3072, 1000, 2048},
                           {768, 4096, 4096},
                           // skinny M
                           {1, 4096, 4096},
                           {16, 4096, 4096},
                           {64, 4096, 4096},
                           {32, 11008, 4096},
                           {32, 4096, 11008},
                           {128, 4096, 4096},
                           {8, 2048, 8192},
                           // few tiles, long K
                           {128, 1024, 8192},
                           {512, 512, 4096},
                           {256, 1024, 16384},
                           {384, 768, 8192},
                           {1024, 1024, 8192},
                           {256, 256, 32768}};
  if (argc > 1 && (argc - 1) % 3 == 0) {
    shapes.clear();
    for (int i = 1; i < argc; i += 3)
      shapes.push_back({std::atoll(argv[i]), std::atoll(argv[i + 1]), std::atoll(argv[i + 2])});
  }
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, gpu.stream()));
  std::vector<const char *> names = {"ship",    "sk",         "cp",         "s64x64", "s64x32",
                                     "s64x128", "w256x128s4", "w256x128s3", "auto"};
  std::vector<std::vector<double>> logs(names.size());
  for (S s : shapes) {
    size_t ac = s.m * s.k, bc = s.k * s.n, cc = s.m * s.n;
    DeviceBuffer a(ac * 2), b(bc * 2), c(cc * 2), ref(cc * 2);
    randomBf16(a, ac, 1);
    randomBf16(b, bc, 2);
    auto peer = [&] {
      cublasRowMajorGemm(handle, s.m, s.n, s.k, a.ptr(), b.ptr(), ref.ptr(), CUDA_R_16BF);
    };
    auto run = [&](Launch f, tlc::rt::StreamK mode) {
      return [&, f, mode] {
        tlc::rt::setStreamK(mode);
        CHECK_TLC(f(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.m, s.k, s.n));
        tlc::rt::setStreamK(tlc::rt::StreamK::Off);
      };
    };
    const auto off = tlc::rt::StreamK::Off;
    std::vector<std::function<void()>> v = {
        run(G::launch, off), run(G::launch, tlc::rt::StreamK::On), run(CP::launch, off),
        run(G::launch, tlc::rt::StreamK::Automatic)};
    std::vector<int> id = {0, 1, 2, 8};
    bool skinny = s.m <= 256;
    if (skinny) {
      v.push_back(run(SK::variant0::launch, off));
      v.push_back(run(SK::variant1::launch, off));
      v.push_back(run(SK::variant2::launch, off));
      id.insert(id.end(), {3, 4, 5});
    } else {
      v.push_back(run(W::variant0::launch, off));
      v.push_back(run(W::variant1::launch, off));
      id.insert(id.end(), {6, 7});
    }
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
                    (long long)s.k, names[id[vi]], md / mr);
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
    std::printf("BENCH %lldx%lldx%lld sel=%d cublas %.1f TF %.1f us |", (long long)s.m,
                (long long)s.n, (long long)s.k, G::select(s.m, s.k, s.n), flops / pm / 1e9,
                pm * 1e3);
    for (size_t i = 0; i < v.size(); ++i) {
      std::printf(" %s %.3f", names[id[i]], pm / t[i][2]);
      logs[id[i]].push_back(std::log(pm / t[i][2]));
    }
    std::printf("\n");
    std::fflush(stdout);
  }
  std::printf("GEOMEAN:");
  for (size_t i = 0; i < names.size(); ++i) {
    double g = 0;
    for (double x : logs[i])
      g += x;
    if (!logs[i].empty())
      std::printf(" %s %.3f (%zu shapes)", names[i], std::exp(g / logs[i].size()), logs[i].size());
  }
  std::printf("\n");
}
