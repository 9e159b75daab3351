// The GEMM-family kernels of issue 11 against cuBLAS on the same tensors in one process, timed
// interleaved with CUDA events (medians of 5 rounds of 5 runs, after warm-up):
//   - batched_gemm (rank-3 tensors) vs cublasGemmStridedBatchedEx, the default build (a cp.async
//     ring feeding wgmma) and the one with --codegen=mma-sync (the register strategy, mma.sync);
//   - grouped_gemm (one launch, per-group sizes in a tensor) vs one cublasGemmEx per group;
//   - w4a16_gemm and w4a16_decode (int4 weights dequantized in registers) vs the f16 GEMM of the
//     same shape (cublasGemmEx): the weight-only-quantization speed-up;
//   - conv2d (implicit GEMM by tap-wise tile copies; its 128-row build, its mma.sync build and
//     the earlier im2col gathered by a `parallel` body, test/gpu/kernels/conv2d_gather.tile) vs
//     cuBLAS on the GEMM of the same M, N, K (no im2col): a ceiling, not a convolution library;
//   - linear_attention: TFLOP/s only (no peer here).
// Roofline: flops = 2 M N K per product (linear attention: four 64^3 products per chunk of 64
// rows, 8 * 64^3 flops); each line gives both medians, TFLOP/s and the ratio peer_ms / tlc_ms,
// and for batched and grouped the largest difference to cuBLAS's result relative to the
// largest |C|.

#include "GpuTest.h"
#include "batched_gemm.h"
#include "batched_gemm_mma_sync.h"
#include "conv2d.h"
#include "conv2d_bm128.h"
#include "conv2d_bn64.h"
#include "conv2d_gather.h"
#include "conv2d_mma_sync.h"
#include "grouped_gemm.h"
#include "grouped_gemm_mma_sync.h"
#include "linear_attention.h"
#include "linear_attention_mma_sync.h"
#include "w4a16_decode.h"
#include "w4a16_gemm.h"
#include "w4a16_gemm_m128ws.h"
#include "w4a16_gemm_m256w8ws.h"
#include "w4a16_shared.h"

#include "CublasPeer.h"

#include <cmath>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>

using namespace tlc::gputest;

namespace {
/// max |x - y| / max |y| over two bf16 device arrays (rows [0, rows) only when given).
double relDiff(CUdeviceptr x, CUdeviceptr y, size_t count) {
  std::vector<uint16_t> a(count), b(count);
  CHECK_CU(cuMemcpyDtoH(a.data(), x, count * 2));
  CHECK_CU(cuMemcpyDtoH(b.data(), y, count * 2));
  double diff = 0, ref = 0;
  for (size_t i = 0; i < count; ++i) {
    float u = fromBf16(a[i]), v = fromBf16(b[i]);
    diff = std::isfinite(u) ? std::max(diff, double(std::fabs(u - v))) : INFINITY;
    ref = std::max(ref, double(std::fabs(v)));
  }
  return diff / std::max(ref, 1e-30);
}

void report(const char *what, double flops, double tlcMs, double peerMs, double rel) {
  std::printf("BENCH gemm-family %s tlc_ms=%.4f tlc_TFLOPs=%.1f peer_ms=%.4f peer_TFLOPs=%.1f "
              "ratio=%.3f rel_diff=%.2e %s\n",
              what, tlcMs, flops / (tlcMs * 1e-3) / 1e12, peerMs,
              peerMs > 0 ? flops / (peerMs * 1e-3) / 1e12 : 0.0, peerMs > 0 ? peerMs / tlcMs : 0.0,
              rel, rel <= 0.02 ? "OK" : "MISMATCH");
}
/// Runs both once, compares tlc's `count` bf16 outputs at `c` with the peer's at `ref`, then
/// times them interleaved and reports.
template <typename A, typename B>
void compareAndTime(const GpuContext &gpu, A tlcLaunch, B peerLaunch, CUdeviceptr c,
                    CUdeviceptr ref, size_t count, const char *what, double flops) {
  tlcLaunch();
  peerLaunch();
  gpu.synchronize();
  double rel = relDiff(c, ref, count);
  auto [t, p] = interleaved(gpu, 5, tlcLaunch, peerLaunch);
  report(what, flops, t, p, rel);
}

/// compareAndTime for the default build and for the --codegen=mma-sync build of a kernel,
/// reported as "<head> build=<name> <tail>"; tlc's output is poisoned before each.
template <typename A, typename M, typename B>
void compareBuilds(const GpuContext &gpu, A tlcLaunch, M mmaSyncLaunch, B peerLaunch, CUdeviceptr c,
                   CUdeviceptr ref, size_t count, const std::string &head, const char *tail,
                   double flops) {
  for (const char *build : {"default", "mma-sync"}) {
    std::string what = head + " build=" + build + " " + tail;
    CHECK_CU(cuMemsetD16(c, 0x7fc0, count));
    if (build[0] == 'd')
      compareAndTime(gpu, tlcLaunch, peerLaunch, c, ref, count, what.c_str(), flops);
    else
      compareAndTime(gpu, mmaSyncLaunch, peerLaunch, c, ref, count, what.c_str(), flops);
  }
}
} // namespace

int main(int argc, char **argv) {
  // `bench_gemm_family SECTION...` runs only those sections (batched, grouped, w4a16, conv2d,
  // linear); no argument runs them all.
  auto section = [&](const char *name) {
    if (argc < 2)
      return true;
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]) == name)
        return true;
    return false;
  };
  GpuContext gpu;
  cublasHandle_t handle;
  CHECK_CUBLAS(cublasCreate(&handle));
  CHECK_CUBLAS(cublasSetStream(handle, gpu.stream()));
  float one = 1.0f, zero = 0.0f;

  // Batched: row-major C[b] = A[b] B[b] is column-major C^T = B^T A^T per entry.
  struct Batch {
    int64_t nb, m, n, k;
  };
  for (Batch s : section("batched")
                     ? std::vector<Batch>{Batch{32, 1024, 1024, 1024}, Batch{8, 2048, 2048, 2048},
                                          Batch{256, 256, 256, 256}, Batch{16, 1000, 1111, 777}}
                     : std::vector<Batch>{}) {
    size_t aCount = s.nb * s.m * s.k, bCount = s.nb * s.k * s.n, cCount = s.nb * s.m * s.n;
    DeviceBuffer a(aCount * 2), b(bCount * 2), c(cCount * 2), ref(cCount * 2);
    randomBf16(a, aCount, 1);
    randomBf16(b, bCount, 2);
    CHECK_CU(cuMemsetD16(c.ptr(), 0x7fc0, cCount));
    auto tlcLaunch = [&] {
      CHECK_TLC(
          tlc::batched_gemm::launch(gpu.stream(), a.ptr(), b.ptr(), c.ptr(), s.nb, s.m, s.k, s.n));
    };
    auto peerLaunch = [&] {
      CHECK_CUBLAS(cublasGemmStridedBatchedEx(
          handle, CUBLAS_OP_N, CUBLAS_OP_N, int(s.n), int(s.m), int(s.k), &one,
          reinterpret_cast<void *>(b.ptr()), CUDA_R_16BF, int(s.n), s.k * s.n,
          reinterpret_cast<void *>(a.ptr()), CUDA_R_16BF, int(s.k), s.m * s.k, &zero,
          reinterpret_cast<void *>(ref.ptr()), CUDA_R_16BF, int(s.n), s.m * s.n, int(s.nb),
          CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    };
    auto mmaSyncLaunch = [&] {
      CHECK_TLC(tlc::batched_gemm_mma_sync::batched_gemm::launch(gpu.stream(), a.ptr(), b.ptr(),
                                                                 c.ptr(), s.nb, s.m, s.k, s.n));
    };
    char head[96];
    std::snprintf(head, sizeof head, "batched bf16 %lldx(%lldx%lldx%lld)", (long long)s.nb,
                  (long long)s.m, (long long)s.n, (long long)s.k);
    compareBuilds(gpu, tlcLaunch, mmaSyncLaunch, peerLaunch, c.ptr(), ref.ptr(), cCount, head,
                  "vs cublasGemmStridedBatchedEx", 2.0 * s.nb * s.m * s.n * s.k);
  }

  // Grouped: G groups of random sizes (one empty) over M rows; peer: one cublasGemmEx per group.
  struct Grouped {
    int64_t g, m, n, k;
  };
  for (Grouped s : section("grouped") ? std::vector<Grouped>{Grouped{8, 8192, 4096, 4096},
                                                             Grouped{64, 16384, 2048, 1024}}
                                      : std::vector<Grouped>{}) {
    std::mt19937 gen(7);
    std::vector<int32_t> sizes(s.g);
    int64_t left = s.m;
    for (int64_t i = 0; i < s.g; ++i) {
      int32_t want = i == 1 ? 0 : int32_t(gen() % (2 * s.m / s.g));
      sizes[i] = i + 1 == s.g ? int32_t(left) : int32_t(std::min<int64_t>(want, left));
      left -= sizes[i];
    }
    size_t aCount = s.m * s.k, wCount = s.g * s.k * s.n, cCount = s.m * s.n;
    DeviceBuffer a(aCount * 2), w(wCount * 2), c(cCount * 2), ref(cCount * 2), sz(s.g * 4);
    randomBf16(a, aCount, 3);
    randomBf16(w, wCount, 4);
    CHECK_CU(cuMemcpyHtoD(sz.ptr(), sizes.data(), s.g * 4));
    CHECK_CU(cuMemsetD16(c.ptr(), 0x7fc0, cCount));
    auto tlcLaunch = [&] {
      CHECK_TLC(tlc::grouped_gemm::launch(gpu.stream(), a.ptr(), w.ptr(), sz.ptr(), c.ptr(), s.m,
                                          s.k, s.g, s.n));
    };
    auto peerLaunch = [&] {
      int64_t row = 0;
      for (int64_t i = 0; i < s.g; ++i) {
        if (sizes[i] > 0)
          cublasRowMajorGemm(handle, sizes[i], s.n, s.k, a.ptr() + 2 * row * s.k,
                             w.ptr() + 2 * i * s.k * s.n, ref.ptr() + 2 * row * s.n, CUDA_R_16BF);
        row += sizes[i];
      }
    };
    auto mmaSyncLaunch = [&] {
      CHECK_TLC(tlc::grouped_gemm_mma_sync::launch(gpu.stream(), a.ptr(), w.ptr(), sz.ptr(),
                                                   c.ptr(), s.m, s.k, s.g, s.n));
    };
    char head[96];
    std::snprintf(head, sizeof head, "grouped bf16 G=%lld M=%lld N=%lld K=%lld", (long long)s.g,
                  (long long)s.m, (long long)s.n, (long long)s.k);
    compareBuilds(gpu, tlcLaunch, mmaSyncLaunch, peerLaunch, c.ptr(), ref.ptr(), cCount, head,
                  "vs cublasGemmEx per group", 2.0 * s.m * s.n * s.k);
  }

  // w4a16 at small M against the f16 GEMM of the same shape.
  for (int64_t m :
       section("w4a16") ? std::vector<int64_t>{1, 16, 128, 1024, 4096} : std::vector<int64_t>{}) {
    int64_t n = 8192, k = 8192, gs = 128;
    DeviceBuffer a(m * k * 2), bq(k / 2 * n), sc((k / gs) * n * 2), c(m * n * 2), b16(k * n * 2),
        ref(m * n * 2);
    randomBf16(a, m * k, 5); // bit patterns only: timing, not values
    randomBf16(bq, k / 4 * n, 6);
    randomBf16(sc, (k / gs) * n, 7);
    randomBf16(b16, k * n, 8);
    auto tlcLaunch = [&] {
      CHECK_TLC(tlc::w4a16_gemm::launch(gpu.stream(), a.ptr(), bq.ptr(), sc.ptr(), c.ptr(), m, k,
                                        k / 2, n, k / gs));
    };
    auto peerLaunch = [&] {
      cublasRowMajorGemm(handle, m, n, k, a.ptr(), b16.ptr(), ref.ptr(), CUDA_R_16F);
    };
    auto [t, p] = interleaved(gpu, 5, tlcLaunch, peerLaunch);
    char what[128];
    std::snprintf(what, sizeof what, "w4a16 M=%lld N=8192 K=8192 vs f16 cublasGemmEx",
                  (long long)m);
    report(what, 2.0 * m * n * k, t, p, 0.0);
    // Beside it: the kernel as shipped until the twenty-seventh session (weights dequantized
    // into a shared f16 tile: bench/experiments/w4a16_shared.tile, the launcher's choice), and
    // for M >= 128 two experiments with scaled weights and one step per iteration: BMQ = 128 rows
    // of A on 4 warps, 256 on 8 (the launcher takes the second for M >= 512).
    using GemmLaunch =
        tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t,
                            int64_t, int64_t, int64_t, int64_t);
    std::vector<std::pair<const char *, GemmLaunch>> others = {
        {"before (dequantized into shared memory)", tlc::w4a16_shared::launch}};
    if (m >= 128) {
      others.push_back({"BMQ=128 WSCALED", tlc::w4a16_gemm_m128ws::launch});
      others.push_back({"BMQ=256 WARPS=8 WSCALED", tlc::w4a16_gemm_m256w8ws::launch});
    }
    for (auto [name, launch] : others) {
      auto other = [&] {
        CHECK_TLC(
            launch(gpu.stream(), a.ptr(), bq.ptr(), sc.ptr(), c.ptr(), m, k, k / 2, n, k / gs));
      };
      auto [tv, pv] = interleaved(gpu, 5, other, peerLaunch);
      std::snprintf(what, sizeof what, "w4a16 M=%lld N=8192 K=8192 %s vs f16 cublasGemmEx",
                    (long long)m, name);
      report(what, 2.0 * m * n * k, tv, pv, 0.0);
    }
    if (m > 16)
      continue;
    // kernels/w4a16_decode.tile (split over k, then the combine: both launches timed), NS
    // splits of the 64 k steps: 128 column blocks x cdiv(M, 16) x NS.
    // (bench/RESULTS.md, twenty-seventh session: the experiments that chose its defaults.)
    for (int64_t ns : {2, 3, 4, 8}) {
      DeviceBuffer cp(ns * m * n * 4);
      auto decodeLaunch = [&] {
        CHECK_TLC(tlc::w4a16_decode::w4a16_decode_split::launch(
            gpu.stream(), a.ptr(), bq.ptr(), sc.ptr(), cp.ptr(), m, k, k / 2, n, k / gs, ns));
        CHECK_TLC(tlc::w4a16_decode::w4a16_decode_combine::launch(gpu.stream(), cp.ptr(), c.ptr(),
                                                                  ns, m, n));
      };
      auto [tv, pv] = interleaved(gpu, 5, decodeLaunch, peerLaunch);
      std::snprintf(what, sizeof what,
                    "w4a16_decode M=%lld N=8192 K=8192 NS=%lld vs f16 cublasGemmEx", (long long)m,
                    (long long)ns);
      report(what, 2.0 * m * n * k, tv, pv, 0.0);
    }
  }

  // conv2d 3x3, padding 1, NHWC, against cuBLAS on the implicit GEMM's M, N, K.
  struct Conv {
    int64_t nb, h, w, ci, co;
  };
  for (Conv s : section("conv2d")
                    ? std::vector<Conv>{Conv{32, 56, 56, 64, 64}, Conv{32, 28, 28, 128, 128},
                                        Conv{16, 14, 14, 256, 256}, Conv{8, 112, 112, 64, 128}}
                    : std::vector<Conv>{}) {
    int64_t m = s.nb * s.h * s.w, n = s.co, k = 9 * s.ci;
    DeviceBuffer x(m * s.ci * 2), wt(k * n * 2), y(m * n * 2), a(m * k * 2), ref(m * n * 2);
    randomBf16(x, m * s.ci, 9);
    randomBf16(wt, k * n, 10);
    randomBf16(a, m * k, 11);
    auto peerLaunch = [&] {
      cublasRowMajorGemm(handle, m, n, k, a.ptr(), wt.ptr(), ref.ptr(), CUDA_R_16BF);
    };
    // default: tap-wise tile copies, BM 64 on one warpgroup; bm128: two warpgroups; bn64: 64
    // output channels per tile; mma-sync:
    // the default on mma.sync; gather: the im2col by `parallel` (test/gpu/kernels).
    for (const char *build : {"default", "bm128", "bn64", "mma-sync", "gather"}) {
      std::string which = build;
      auto tlcLaunch = [&] {
        if (which == "default")
          CHECK_TLC(tlc::conv2d::launch(gpu.stream(), x.ptr(), wt.ptr(), y.ptr(), s.nb, s.h, s.w,
                                        s.ci, k, n));
        else if (which == "bm128")
          CHECK_TLC(tlc::conv2d_bm128::launch(gpu.stream(), x.ptr(), wt.ptr(), y.ptr(), s.nb, s.h,
                                              s.w, s.ci, k, n));
        else if (which == "bn64")
          CHECK_TLC(tlc::conv2d_bn64::launch(gpu.stream(), x.ptr(), wt.ptr(), y.ptr(), s.nb, s.h,
                                             s.w, s.ci, k, n));
        else if (which == "mma-sync")
          CHECK_TLC(tlc::conv2d_mma_sync::launch(gpu.stream(), x.ptr(), wt.ptr(), y.ptr(), s.nb,
                                                 s.h, s.w, s.ci, k, n));
        else
          CHECK_TLC(tlc::conv2d_gather::launch(gpu.stream(), x.ptr(), wt.ptr(), y.ptr(), s.nb, s.h,
                                               s.w, s.ci, k, n, m));
      };
      auto [t, p] = interleaved(gpu, 5, tlcLaunch, peerLaunch);
      char what[192];
      std::snprintf(what, sizeof what,
                    "conv2d 3x3 NHWC N=%lld H=W=%lld C=%lld->%lld build=%s vs cuBLAS on the GEMM "
                    "%lldx%lldx%lld",
                    (long long)s.nb, (long long)s.h, (long long)s.ci, (long long)s.co, build,
                    (long long)m, (long long)n, (long long)k);
      report(what, 2.0 * m * n * k, t, p, 0.0);
    }
  }

  // Linear attention, B=4 H=16 S=4096 D=64 (chunks of 64): per chunk four 64^3 products.
  if (section("linear")) {
    int64_t b = 4, h = 16, s = 4096, d = 64;
    size_t count = b * h * s * d;
    DeviceBuffer q(count * 2), kk(count * 2), v(count * 2), o(count * 2);
    randomBf16(q, count, 12);
    randomBf16(kk, count, 13);
    randomBf16(v, count, 14);
    auto tlcLaunch = [&] {
      CHECK_TLC(tlc::linear_attention::launch(gpu.stream(), q.ptr(), kk.ptr(), v.ptr(), o.ptr(), b,
                                              h, s));
    };
    auto mmaSyncLaunch = [&] {
      CHECK_TLC(tlc::linear_attention_mma_sync::launch(gpu.stream(), q.ptr(), kk.ptr(), v.ptr(),
                                                       o.ptr(), b, h, s));
    };
    // The mma.sync build as the "peer": same process, interleaved.
    auto [t, p] = interleaved(gpu, 5, tlcLaunch, mmaSyncLaunch);
    report("linear_attention bf16 B=4 H=16 S=4096 D=64 (peer: build=mma-sync)",
           double(b * h * (s / 64)) * 4 * 2.0 * 64 * 64 * 64, t, p, 0.0);
  }
  cublasDestroy(handle);
  return 0;
}
