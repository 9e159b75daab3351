// GPU test of kernels/gemm.tile and kernels/gemm_bias_gelu.tile through their launchers: bf16
// and f16 inputs, bf16/f32 outputs, B row-major and transposed, the fused bias + GELU epilogue,
// every tile configuration, the Hopper (TMA + wgmma) entries and the generic fallback for
// tensors TMA cannot address. Random inputs, C poisoned first, guard bytes after C, a
// double-precision reference on the rounded inputs (all rows, or rows sampled for big shapes).

#include "GpuTest.h"
#include "gemm.h"
#include "gemm_bias_gelu.h"
#include "gemm_f16.h"
#include "gemm_f16_sm_90.h"
#include "gemm_loop.h"
#include "gemm_loop_sm_80.h"
#include "gemm_sm_80.h"
#include "gemm_sm_90.h"

#include <cstring>
#include <functional>

using namespace tlc::gputest;

namespace {
enum class DType { BF16, F16, F32 };

size_t bytesOf(DType t) { return t == DType::F32 ? 4 : 2; }
float roundTo(DType t, float v) {
  return t == DType::BF16 ? fromBf16(toBf16(v)) : t == DType::F16 ? fromF16(toF16(v)) : v;
}
std::vector<unsigned char> encode(DType t, const std::vector<float> &v) {
  std::vector<unsigned char> out(v.size() * bytesOf(t));
  for (size_t i = 0; i < v.size(); ++i) {
    if (t == DType::F32) {
      std::memcpy(&out[i * 4], &v[i], 4);
    } else {
      uint16_t h = t == DType::BF16 ? toBf16(v[i]) : toF16(v[i]);
      std::memcpy(&out[i * 2], &h, 2);
    }
  }
  return out;
}
float decode(DType t, const unsigned char *p) {
  if (t == DType::F32) {
    float f;
    std::memcpy(&f, p, 4);
    return f;
  }
  uint16_t h;
  std::memcpy(&h, p, 2);
  return t == DType::BF16 ? fromBf16(h) : fromF16(h);
}

struct Case {
  const char *what;
  int64_t m, n, k;
  /// Rows of C compared with the reference (spread over C); 0: all.
  int64_t checkRows = 0;
  DType in = DType::BF16, out = DType::BF16;
  bool transB = false, biasGelu = false;
  /// Base addresses of A and B this many elements past an allocation (16-byte aligned).
  int64_t offsetA = 0, offsetB = 0;
};

using LaunchFn =
    std::function<tlc::rt::Status(CUstream, CUdeviceptr a, CUdeviceptr b, CUdeviceptr bias,
                                  CUdeviceptr c, int64_t m, int64_t k, int64_t n)>;

/// The LaunchFn of a generated `launch(stream, A, B, C, M, K, N)` (no bias).
using PlainLaunch = tlc::rt::Status (*)(CUstream, CUdeviceptr, CUdeviceptr, CUdeviceptr, int64_t,
                                        int64_t, int64_t);
LaunchFn plain(PlainLaunch launch) {
  return [launch](CUstream s, CUdeviceptr a, CUdeviceptr b, CUdeviceptr, CUdeviceptr c, int64_t m,
                  int64_t k, int64_t n) { return launch(s, a, b, c, m, k, n); };
}

/// `launch` captured into a CUDA graph (stream capture in `mode`), the graph then run twice on
/// the test's stream: the workspace of an unaligned launch becomes the graph's allocation and
/// free nodes. The graph must have `nodes` nodes (1: the GEMM; 4: allocation, copy, GEMM, free).
LaunchFn graphed(PlainLaunch launch, CUstreamCaptureMode mode, size_t nodes) {
  return [launch, mode, nodes](CUstream s, CUdeviceptr a, CUdeviceptr b, CUdeviceptr, CUdeviceptr c,
                               int64_t m, int64_t k, int64_t n) {
    CUstream capturing = nullptr;
    CHECK_CU(cuStreamCreate(&capturing, CU_STREAM_NON_BLOCKING));
    CHECK_CU(cuStreamBeginCapture(capturing, mode));
    tlc::rt::Status status = launch(capturing, a, b, c, m, k, n);
    CUgraph graph = nullptr;
    CHECK_CU(cuStreamEndCapture(capturing, &graph));
    size_t count = 0;
    CHECK_CU(cuGraphGetNodes(graph, nullptr, &count));
    if (count != nodes) {
      std::printf("FAIL: the captured graph has %zu nodes, not %zu\n", count, nodes);
      std::exit(1);
    }
    if (status.ok()) {
      CUgraphExec exec = nullptr;
      CHECK_CU(cuGraphInstantiate(&exec, graph, 0));
      CHECK_CU(cuGraphLaunch(exec, s));
      CHECK_CU(cuGraphLaunch(exec, s));
      CHECK_CU(cuStreamSynchronize(s));
      CHECK_CU(cuGraphExecDestroy(exec));
    }
    CHECK_CU(cuGraphDestroy(graph));
    CHECK_CU(cuStreamDestroy(capturing));
    return status;
  };
}

double gelu(double x) {
  return 0.5 * x * (1.0 + std::tanh(0.7978845608 * (x + 0.044715 * x * x * x)));
}

/// The graph nodes a captured launch of gemm.tile adds for stream-K (allocation, zeroed flags,
/// free: docs/abi.md) on this device: 3 where the chosen configuration splits tiles along K.
size_t streamKNodes(int64_t m, int64_t k, int64_t n) {
  static const int64_t tile[5][2] = {{128, 256}, {128, 192}, {128, 128}, {64, 128}, {64, 64}};
  int v = tlc::gemm::gemm::select(m, k, n);
  int sms = 0;
  CHECK_TLC(tlc::rt::multiprocessorCount(&sms));
  int64_t tiles = (m + tile[v][0] - 1) / tile[v][0] * ((n + tile[v][1] - 1) / tile[v][1]);
  return tlc::rt::streamKSplits(tiles, sms, (k + 63) / 64) ? 3 : 0;
}

/// `gemm_test small` (for compute-sanitizer) runs the cases up to this many multiply-adds.
int64_t maxWork = INT64_MAX;

bool runCase(const GpuContext &gpu, const Case &c, const LaunchFn &launch, uint32_t seed) {
  if (c.m * c.n * c.k > maxWork)
    return true;
  size_t M = c.m, N = c.n, K = c.k;
  std::vector<float> a(M * K), b(K * N), bias(N);
  randomFill(a, seed);
  randomFill(b, seed + 1);
  randomFill(bias, seed + 2);
  for (float &v : a)
    v = roundTo(c.in, v);
  for (float &v : b)
    v = roundTo(c.in, v);
  // B as stored: [K, N], or [N, K] when transposed.
  std::vector<float> bStored(b.size());
  for (size_t i = 0; i < K; ++i)
    for (size_t j = 0; j < N; ++j)
      bStored[c.transB ? j * K + i : i * N + j] = b[i * N + j];
  size_t inBytes = bytesOf(c.in);
  DeviceBuffer da(std::max<size_t>(1, (M * K + c.offsetA) * inBytes)),
      db((b.size() + c.offsetB) * inBytes);
  CUdeviceptr aBase = da.ptr() + c.offsetA * inBytes, bBase = db.ptr() + c.offsetB * inBytes;
  DeviceBuffer dbias(N * 4), dc((M * N + GuardElements) * bytesOf(c.out));
  auto ah = encode(c.in, a), bh = encode(c.in, bStored);
  CHECK_CU(cuMemcpyHtoD(aBase, ah.data(), ah.size()));
  CHECK_CU(cuMemcpyHtoD(bBase, bh.data(), bh.size()));
  upload(dbias.ptr(), bias);
  poison(dc, gpu.stream());

  CHECK_TLC(launch(gpu.stream(), aBase, bBase, dbias.ptr(), dc.ptr(), c.m, c.k, c.n));
  gpu.synchronize();

  std::vector<unsigned char> ch(M * N * bytesOf(c.out));
  CHECK_CU(cuMemcpyDtoH(ch.data(), dc.ptr(), ch.size()));
  std::vector<size_t> rows;
  size_t step = c.checkRows ? std::max<size_t>(1, M / c.checkRows) : 1;
  for (size_t r = 0; r < M; r += step)
    rows.push_back(r);
  if (rows.back() != M - 1)
    rows.push_back(M - 1);
  std::vector<float> got;
  std::vector<double> ref, magnitude;
  std::vector<double> row(N), mag(N);
  for (size_t r : rows) {
    std::fill(row.begin(), row.end(), 0.0);
    std::fill(mag.begin(), mag.end(), 0.0);
    for (size_t i = 0; i < K; ++i) {
      double ai = a[r * K + i];
      const float *bi = &b[i * N];
      for (size_t j = 0; j < N; ++j) {
        double p = ai * bi[j];
        row[j] += p;
        mag[j] += std::fabs(p);
      }
    }
    for (size_t j = 0; j < N; ++j) {
      double want = c.biasGelu ? gelu(row[j] + bias[j]) : row[j];
      got.push_back(decode(c.out, &ch[(r * N + j) * bytesOf(c.out)]));
      ref.push_back(want);
      // Output rounding is relative to |C|; accumulated error to sum |a b| / sqrt(K).
      magnitude.push_back(mag[j] / std::sqrt(double(K) + 1) + (c.biasGelu ? 1e-2 : 0));
    }
  }
  Comparison cmp = compare(got, ref, magnitude, 1e-2);
  size_t unwritten = 0;
  for (size_t i = 0; i < M * N; ++i)
    unwritten += std::isnan(decode(c.out, &ch[i * bytesOf(c.out)])) ? 1 : 0;
  char name[160];
  std::snprintf(name, sizeof(name), "%s %lldx%lldx%lld%s", c.what, (long long)c.m, (long long)c.n,
                (long long)c.k, c.checkRows ? " (rows sampled)" : "");
  bool ok = report(name, cmp, got, ref, clobberedGuardBytes(dc, M * N * bytesOf(c.out)));
  if (unwritten) {
    std::printf("  %zu elements of C were not written\n", unwritten);
    ok = false;
  }
  return ok;
}
} // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "small") == 0)
    maxWork = int64_t(1) << 30;
  GpuContext gpu;
  bool ok = true;
  uint32_t seed = 21;
  LaunchFn bf16 = plain(tlc::gemm::gemm::launch);
  // The sweep, through the dispatcher (which picks the configuration).
  for (Case c : {Case{"gemm bf16", 1000, 1112, 776}, Case{"gemm bf16", 1, 1000, 304},
                 Case{"gemm bf16", 2048, 2048, 2048, 64}, Case{"gemm bf16", 4096, 4096, 4104, 24},
                 Case{"gemm bf16", 4096, 4096, 4096, 24}, Case{"gemm bf16", 8192, 8192, 8192, 12},
                 Case{"gemm bf16", 128, 256, 64}, Case{"gemm bf16", 200, 56, 8},
                 // At most 64 rows: 64 x 64 tiles (the wave model's choice).
                 Case{"gemm bf16 skinny", 64, 8192, 1024}, Case{"gemm bf16 skinny", 16, 1000, 2056},
                 Case{"gemm bf16 skinny", 37, 200, 72}, Case{"gemm bf16 skinny", 120, 4096, 1000}})
    ok &= runCase(gpu, c, bf16, seed += 3);
  // Each configuration on a ragged shape.
  LaunchFn variants[] = {
      plain(tlc::gemm::gemm::variant0::launch), plain(tlc::gemm::gemm::variant1::launch),
      plain(tlc::gemm::gemm::variant2::launch), plain(tlc::gemm::gemm::variant3::launch),
      plain(tlc::gemm::gemm::variant4::launch)};
  const char *names[] = {"gemm bf16 128x256 tiles", "gemm bf16 128x192 tiles",
                         "gemm bf16 128x128 tiles", "gemm bf16 64x128 tiles",
                         "gemm bf16 64x64 tiles"};
  for (int v = 0; v < 5; ++v)
    ok &= runCase(gpu, Case{names[v], 333, 520, 1000}, variants[v], seed += 3);
  // 128 x 192 tiles on a ragged shape whose last column tile is partial (3000 = 15.6 x 192).
  ok &= runCase(gpu, Case{names[1], 1000, 3000, 776}, variants[1], seed += 3);
  // The launcher's choice (132 multiprocessors): 64 x 64 tiles where they fit one wave and fill
  // more of it than 64 x 128 (M <= 64 at N = 8192; M = 128 at N = 4096); 128 x 192
  // where they fill the wave that 128 x 256 leaves short (1024 x 3000: 128 blocks against 96).
  static_assert(tlc::gemm::gemm::num_variants == 5, "gemm.tile has five configurations");
  for (auto [m, want] : {std::pair{int64_t(64), 4}, std::pair{int64_t(1), 4},
                         std::pair{int64_t(65), 3}, std::pair{int64_t(4096), 0}}) {
    int got = tlc::gemm::gemm::select_for(132, m, 8192, 8192);
    std::printf("%s gemm select_for(132, M = %lld, 8192, 8192) = %d (want %d)\n",
                got == want ? "PASS" : "FAIL", (long long)m, got, want);
    ok &= got == want;
  }
  {
    int got = tlc::gemm::gemm::select_for(132, 128, 4096, 4096);
    std::printf("%s gemm select_for(132, 128, 4096, 4096) = %d (want 4)\n",
                got == 4 ? "PASS" : "FAIL", got);
    ok &= got == 4;
  }
  {
    int got = tlc::gemm::gemm::select_for(132, 1024, 4096, 3000);
    std::printf("%s gemm select_for(132, 1024, 4096, 3000) = %d (want 1)\n",
                got == 1 ? "PASS" : "FAIL", got);
    ok &= got == 1;
  }
  // Odd and even block-row counts per configuration, with clusters switched on and off. A build
  // with `tlc --cluster-pairs` (docs/abi.md) runs them in 2-block clusters sharing B's loads,
  // an odd row count from 9 on leaving the last pair's second tile past the grid (its
  // consumers only pass the stages on; bench/RESULTS.md, thirty-third session); the bundled
  // build runs single blocks.
  for (int v = 0; v < 4; ++v) {
    // 1100 rows: 9 block rows of 128 (the first three configurations), 18 of 64.
    ok &= runCase(gpu, Case{names[v], 1100, 1000, 520}, variants[v], seed += 3);
    ok &= runCase(gpu, Case{names[v], 1025, 744, 1032}, variants[v], seed += 3);
  }
  tlc::rt::setClusters(false);
  ok &= runCase(gpu, Case{"gemm bf16 clusters switched off", 1100, 1000, 520}, bf16, seed += 3);
  tlc::rt::setClusters(true);
  // Stream-K (docs/abi.md; automatic by default, switched on here): where whole tiles would
  // leave the last wave short, the tiles of the last two waves (all tiles in a grid below one wave)
  // are split along K and summed through a workspace; every element of C is still written once.
  tlc::rt::setStreamK(true);
  for (Case c :
       {Case{"gemm bf16 stream-K, a short last wave", 3001, 3000, 1000, 48},
        Case{"gemm bf16 stream-K, each tile over about 8 blocks", 256, 512, 8192},
        Case{"gemm bf16 stream-K, small", 384, 640, 640},
        Case{"gemm bf16 stream-K asked, one iteration per tile (tiles whole)", 1000, 1112, 64}})
    ok &= runCase(gpu, c, bf16, seed += 3);
  tlc::rt::setStreamK(false);
  ok &=
      runCase(gpu, Case{"gemm bf16 stream-K switched off", 3001, 3000, 1000, 48}, bf16, seed += 3);
  // Automatic (the default; tlc::rt::streamKPays): split only where few tiles meet a long K.
  tlc::rt::setStreamK(tlc::rt::StreamK::Automatic);
  for (Case c : {Case{"gemm bf16 stream-K automatic, few tiles and a long K", 250, 520, 8200},
                 Case{"gemm bf16 stream-K automatic, one tile", 64, 100, 12000},
                 Case{"gemm bf16 stream-K automatic, half the multiprocessors", 700, 700, 8200},
                 Case{"gemm bf16 stream-K automatic, many tiles (whole)", 3001, 3000, 1000, 48}})
    ok &= runCase(gpu, c, bf16, seed += 3);
  // Rows that break TMA's 16-byte rule (K or N not a multiple of 8): launch() copies A and B
  // into an aligned workspace and runs the TMA entry on the copies (issue 11, docs/abi.md).
  for (Case c : {Case{"gemm bf16 unaligned rows (TMA on aligned copies)", 257, 129, 65},
                 Case{"gemm bf16 unaligned rows (TMA on aligned copies)", 1, 1000, 300},
                 Case{"gemm bf16 unaligned rows (TMA on aligned copies)", 1000, 1111, 777},
                 Case{"gemm bf16 unaligned rows (TMA on aligned copies)", 2048, 2047, 2049, 64}})
    ok &= runCase(gpu, c, bf16, seed += 3);
  // The same launches captured into CUDA graphs (after the module is loaded: loading a module
  // is not a stream operation).
  // Whole tiles, then stream-K (its allocation, zeroed flags and free become nodes too).
  for (bool split : {false, true}) {
    tlc::rt::setStreamK(split);
    for (CUstreamCaptureMode mode :
         {CU_STREAM_CAPTURE_MODE_GLOBAL, CU_STREAM_CAPTURE_MODE_THREAD_LOCAL}) {
      // N = 1111: B copied (allocation, copy, GEMM, free); N = 1112: the GEMM alone; each with
      // stream-K's nodes where it splits tiles.
      ok &= runCase(gpu, Case{"gemm bf16 unaligned rows, in a CUDA graph", 1000, 1111, 776},
                    graphed(tlc::gemm::gemm::launch, mode, 4 + streamKNodes(1000, 776, 1111)),
                    seed += 3);
      ok &= runCase(gpu, Case{"gemm bf16 aligned, in a CUDA graph", 1000, 1112, 776},
                    graphed(tlc::gemm::gemm::launch, mode, 1 + streamKNodes(1000, 776, 1112)),
                    seed += 3);
    }
  }
  tlc::rt::setStreamK(tlc::rt::StreamK::Automatic);
  // Bases off the 16-byte boundary, rows aligned: TMA cannot start a box there (a box whose
  // first column is not 16-byte aligned is an illegal instruction on the H200), so launch()
  // copies the operands into an aligned workspace first.
  // Rows 16 bytes but not 32 bytes aligned (K = 1000, N = 3000) in a grid of more blocks than
  // multiprocessors: launch() copies A and B into rows of whole sectors (realign, docs/abi.md).
  ok &= runCase(gpu, Case{"gemm bf16 rows off 32 bytes (realigned copies)", 2000, 3000, 1000, 64},
                bf16, seed += 3);
  for (Case c : {Case{"gemm bf16 bases off 16 bytes", 1000, 1112, 776},
                 Case{"gemm bf16 bases off 16 bytes", 333, 520, 1000},
                 Case{"gemm bf16 bases off 16 bytes", 4096, 4096, 4096, 24}}) {
    c.offsetA = 1 + c.m % 7;
    c.offsetB = 7 - c.n % 5;
    ok &= runCase(gpu, c, bf16, seed += 3);
  }
  // B transposed ([N, K]), both operands K-major.
  LaunchFn nt = plain(tlc::gemm::gemm_nt::launch);
  for (Case c : {Case{"gemm_nt bf16", 1000, 1112, 776}, Case{"gemm_nt bf16", 2048, 2048, 2048, 64}})
    ok &= runCase(gpu, Case{c.what, c.m, c.n, c.k, c.checkRows, DType::BF16, DType::BF16, true}, nt,
                  seed += 3);
  ok &= runCase(gpu,
                Case{"gemm_nt bf16 bases off 16 bytes", 1000, 1112, 776, 0, DType::BF16,
                     DType::BF16, true, false, 3, 5},
                nt, seed += 3);
  // f16 inputs, f32 output (kernels/gemm.tile compiled with -D T=f16 -D TO=f32).
  LaunchFn f16 = plain(tlc::gemm_f16::gemm::launch);
  LaunchFn f16nt = plain(tlc::gemm_f16::gemm_nt::launch);
  ok &= runCase(gpu, Case{"gemm f16->f32", 1000, 1112, 776, 0, DType::F16, DType::F32}, f16,
                seed += 3);
  ok &= runCase(gpu, Case{"gemm f16->f32", 4096, 4096, 4096, 16, DType::F16, DType::F32}, f16,
                seed += 3);
  ok &= runCase(gpu, Case{"gemm_nt f16->f32", 777, 600, 1032, 0, DType::F16, DType::F32, true},
                f16nt, seed += 3);
  // The fused epilogue.
  LaunchFn gelu = [](CUstream s, CUdeviceptr a, CUdeviceptr b, CUdeviceptr bias, CUdeviceptr c,
                     int64_t m, int64_t k, int64_t n) {
    return tlc::gemm_bias_gelu::gemm_bias_gelu::launch(s, a, b, bias, c, m, k, n);
  };
  // Its 128 x 192 configuration forced, the last column tile partial (3000 = 15.6 x 192).
  LaunchFn gelu192 = [](CUstream s, CUdeviceptr a, CUdeviceptr b, CUdeviceptr bias, CUdeviceptr c,
                        int64_t m, int64_t k, int64_t n) {
    return tlc::gemm_bias_gelu::gemm_bias_gelu::variant1::launch(s, a, b, bias, c, m, k, n);
  };
  for (Case c : {Case{"gemm+bias+gelu bf16", 1000, 1112, 776},
                 Case{"gemm+bias+gelu bf16", 4096, 4096, 4096, 16},
                 Case{"gemm+bias+gelu bf16", 768, 4096, 4096, 16}}) {
    c.biasGelu = true;
    ok &= runCase(gpu, c, gelu, seed += 3);
  }
  {
    Case c{"gemm+bias+gelu bf16 128x192 tiles", 1000, 3000, 776};
    c.biasGelu = true;
    ok &= runCase(gpu, c, gelu192, seed += 3);
  }
  // The mma.sync strategy (cp.async ring, ldmatrix, mma.sync): kernels/gemm.tile compiled for
  // sm_90 (SASS) and for sm_80 (compute_80 PTX, JIT-compiled by the driver on this GPU).
  LaunchFn sm90 = plain(tlc::gemm_sm_90::gemm::launch);
  LaunchFn sm90nt = plain(tlc::gemm_sm_90::gemm_nt::launch);
  LaunchFn sm80 = plain(tlc::gemm_sm_80::gemm::launch);
  for (Case c :
       {Case{"gemm sm_90 mma.sync", 1000, 1112, 776}, Case{"gemm sm_90 mma.sync", 1, 1000, 304},
        Case{"gemm sm_90 mma.sync", 2048, 2048, 2048, 32},
        Case{"gemm sm_90 mma.sync", 4096, 4096, 4104, 16},
        Case{"gemm sm_90 mma.sync", 4096, 4096, 4096, 16},
        Case{"gemm sm_90 mma.sync", 8192, 8192, 8192, 8},
        Case{"gemm sm_90 mma.sync unaligned rows", 257, 129, 65}})
    ok &= runCase(gpu, c, sm90, seed += 3);
  LaunchFn sm90variants[] = {plain(tlc::gemm_sm_90::gemm::variant0::launch),
                             plain(tlc::gemm_sm_90::gemm::variant1::launch),
                             plain(tlc::gemm_sm_90::gemm::variant2::launch),
                             plain(tlc::gemm_sm_90::gemm::variant3::launch),
                             plain(tlc::gemm_sm_90::gemm::variant4::launch)};
  for (int v = 0; v < 5; ++v)
    ok &= runCase(gpu, Case{names[v], 333, 520, 1000}, sm90variants[v], seed += 3);
  ok &= runCase(gpu,
                Case{"gemm_nt sm_90 mma.sync", 1000, 1112, 776, 0, DType::BF16, DType::BF16, true},
                sm90nt, seed += 3);
  LaunchFn f16sm90 = plain(tlc::gemm_f16_sm_90::gemm::launch);
  LaunchFn f16sm90nt = plain(tlc::gemm_f16_sm_90::gemm_nt::launch);
  ok &=
      runCase(gpu, Case{"gemm sm_90 mma.sync f16->f32", 1000, 1112, 776, 0, DType::F16, DType::F32},
              f16sm90, seed += 3);
  ok &= runCase(
      gpu, Case{"gemm_nt sm_90 mma.sync f16->f32", 777, 600, 1032, 0, DType::F16, DType::F32, true},
      f16sm90nt, seed += 3);
  for (Case c : {Case{"gemm sm_80 (PTX JIT) mma.sync", 1000, 1112, 776},
                 Case{"gemm sm_80 (PTX JIT) mma.sync", 2048, 2048, 2048, 32},
                 Case{"gemm sm_80 (PTX JIT) unaligned rows", 257, 129, 65}})
    ok &= runCase(gpu, c, sm80, seed += 3);
  // The register strategy on a GEMM with a plain loop (test/gpu/kernels/gemm_loop.tile): tiles
  // copied and waited for at each step, A from shared memory, row-major B.
  LaunchFn loop = plain(tlc::gemm_loop::gemm_loop::launch);
  LaunchFn loopSm80 = plain(tlc::gemm_loop_sm_80::gemm_loop::launch);
  for (Case c : {Case{"gemm_loop register strategy", 1000, 1112, 776},
                 Case{"gemm_loop register strategy", 2048, 2048, 2048, 32},
                 Case{"gemm_loop register strategy unaligned rows", 257, 129, 65}})
    ok &= runCase(gpu, c, loop, seed += 3);
  ok &= runCase(gpu, Case{"gemm_loop sm_80 (PTX JIT) register strategy", 1000, 1112, 776}, loopSm80,
                seed += 3);
  std::printf("gemm_test: %s\n", ok ? "PASS" : "FAIL");
  return ok ? 0 : 1;
}
