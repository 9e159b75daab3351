// The C entry points of libtlc_bench_shim.so: the generated launchers of softmax, rmsnorm,
// layernorm and fp8_cast (and the norms built with f32 tensors), of attention and decoding, of
// fp8_gemm and of topk, behind names and argument types that bench/norms_peers.py,
// bench/attention_peers.py, bench/decode_peers.py and bench/fp8_gemm_peers.py declare with
// ctypes.
// Every function returns a CUresult (0 on success); device pointers are CUdeviceptr values (torch's
// data_ptr()) and the stream is a CUstream (torch's cuda_stream), so the kernels run on the
// caller's stream.

#include "attention.h"
#include "attention_bm128_bn32.h"
#include "attention_causal.h"
#include "attention_decode.h"
#include "attention_decode_bn64.h"
#include "attention_decode_s4.h"
#include "attention_f16_d64.h"
#include "attention_f16_d64_causal.h"
#include "attention_gqa.h"
#include "attention_gqa_causal.h"
#include "attention_varlen.h"
#include "attention_varlen_causal.h"
#include "fp8_cast.h"
#include "fp8_gemm.h"
#include "layernorm.h"
#include "layernorm_b1.h"
#include "layernorm_dev.h"
#include "layernorm_f32.h"
#include "layernorm_nt512.h"
#include "layernorm_prev.h"
#include "layernorm_sweeps.h"
#include "layernorm_wb.h"
#include "layernorm_wb512.h"
#include "mla_decode.h"
#include "rmsnorm.h"
#include "rmsnorm_b1.h"
#include "rmsnorm_f32.h"
#include "rmsnorm_nt512.h"
#include "rmsnorm_prev.h"
#include "rmsnorm_sweeps.h"
#include "softmax.h"
#include "softmax_bf16.h"
#include "softmax_bf16_b1.h"
#include "softmax_bf16_nt512.h"
#include "softmax_bf16_r16.h"
#include "softmax_parts_h16s3.h"
#include "softmax_parts_h16s4.h"
#include "softmax_parts_pow2.h"
#include "softmax_parts_pow2s4.h"
#include "softmax_parts_s3.h"
#include "softmax_parts_s4.h"
#include "softmax_prev.h"
#include "softmax_rowregs512_bf16.h"
#include "softmax_rowregs512_f32.h"
#include "softmax_rowregs_bf16.h"
#include "softmax_rowregs_f32.h"
#include "topk.h"
#include "topk_bf16_k50.h"
#include "topk_k2.h"

#include <cuda.h>

#include <cstdint>
#include <initializer_list>

namespace {
/// `launches[variant + 1]`: the launcher's choice (`variant` -1, or out of range) or
/// configuration `variant` of a kernel with `configs`.
template <typename Launch> Launch pickVariant(int variant, std::initializer_list<Launch> launches) {
  return variant + 1 >= 1 && variant + 1 < static_cast<int>(launches.size())
             ? launches.begin()[variant + 1]
             : *launches.begin();
}
} // namespace

extern "C" {

/// Makes device \p device's primary context (the one the CUDA runtime, and so PyTorch, uses)
/// current on the calling thread.
int tlc_bench_init(int device) {
  CUresult r = cuInit(0);
  CUdevice dev = 0;
  CUcontext context = nullptr;
  if (r == CUDA_SUCCESS)
    r = cuDeviceGet(&dev, device);
  if (r == CUDA_SUCCESS)
    r = cuDevicePrimaryCtxRetain(&context, dev);
  if (r == CUDA_SUCCESS)
    r = cuCtxSetCurrent(context);
  return static_cast<int>(r);
}

/// The name of a CUresult ("CUDA_ERROR_INVALID_VALUE"), or "unknown CUresult".
const char *tlc_bench_error_name(int result) {
  const char *name = nullptr;
  if (cuGetErrorName(static_cast<CUresult>(result), &name) != CUDA_SUCCESS || !name)
    return "unknown CUresult";
  return name;
}

/// softmax.tile (f32): Y = softmax(X) along rows.
int tlc_bench_softmax_f32(void *stream, uint64_t x, uint64_t y, int64_t m, int64_t n) {
  return tlc_softmax_softmax_launch(static_cast<CUstream>(stream), x, y, m, n);
}

/// softmax.tile with bf16 tensors (-D T=bf16; f32 arithmetic).
int tlc_bench_softmax_bf16(void *stream, uint64_t x, uint64_t y, int64_t m, int64_t n) {
  return tlc_softmax_bf16_softmax_launch(static_cast<CUstream>(stream), x, y, m, n);
}

/// rmsnorm.tile, bf16 (`f32` = 0) or f32 (`f32` = 1) tensors.
int tlc_bench_rmsnorm(int f32, void *stream, uint64_t x, uint64_t w, uint64_t y, float eps,
                      int64_t m, int64_t n) {
  auto s = static_cast<CUstream>(stream);
  return f32 ? tlc_rmsnorm_f32_rmsnorm_launch(s, x, w, y, eps, m, n)
             : tlc_rmsnorm_rmsnorm_launch(s, x, w, y, eps, m, n);
}

/// rmsnorm.tile's rmsnorm_residual: H = X + R, Y = rmsnorm(H).
int tlc_bench_rmsnorm_residual(int f32, void *stream, uint64_t x, uint64_t r, uint64_t w,
                               uint64_t y, uint64_t h, float eps, int64_t m, int64_t n) {
  auto s = static_cast<CUstream>(stream);
  return f32 ? tlc_rmsnorm_f32_rmsnorm_residual_launch(s, x, r, w, y, h, eps, m, n)
             : tlc_rmsnorm_rmsnorm_residual_launch(s, x, r, w, y, h, eps, m, n);
}

/// layernorm.tile: Y = layer_norm(X) * W + B.
int tlc_bench_layernorm(int f32, void *stream, uint64_t x, uint64_t w, uint64_t b, uint64_t y,
                        float eps, int64_t m, int64_t n) {
  auto s = static_cast<CUstream>(stream);
  return f32 ? tlc_layernorm_f32_layernorm_launch(s, x, w, b, y, eps, m, n)
             : tlc_layernorm_layernorm_launch(s, x, w, b, y, eps, m, n);
}

/// layernorm.tile's layernorm_residual: H = X + R, Y = layernorm(H).
int tlc_bench_layernorm_residual(int f32, void *stream, uint64_t x, uint64_t r, uint64_t w,
                                 uint64_t b, uint64_t y, uint64_t h, float eps, int64_t m,
                                 int64_t n) {
  auto s = static_cast<CUstream>(stream);
  return f32 ? tlc_layernorm_f32_layernorm_residual_launch(s, x, r, w, b, y, h, eps, m, n)
             : tlc_layernorm_layernorm_residual_launch(s, x, r, w, b, y, h, eps, m, n);
}

/// bf16 variants (norms_peers.py --variants): softmax 1: BLOCKS = 1 (the shipped bf16 build takes
/// 4), 2: 16 row tiles per block, 3: before the rings (bench/experiments/softmax_prev.tile), 4: 512
/// threads, 5 and 6: rows of 16385..32768 columns held in registers, read once, on 1024 and 512
/// threads (bench/experiments/softmax_rowregs.tile), 7-10: configuration 0 alone
/// (bench/experiments/softmax_parts.tile) on 3 and 4 stages of 8192-column parts, and of two
/// 16384-column parts; 11, 12: rows and parts by shifts (POW2) on 6 and 4 stages.
int tlc_bench_softmax_variant(int variant, void *stream, uint64_t x, uint64_t y, int64_t m,
                              int64_t n) {
  auto s = static_cast<CUstream>(stream);
  auto launch = variant == 1    ? tlc_softmax_bf16_b1_softmax_launch
                : variant == 2  ? tlc_softmax_bf16_r16_softmax_launch
                : variant == 4  ? tlc_softmax_bf16_nt512_softmax_launch
                : variant == 5  ? tlc_softmax_rowregs_bf16_softmax_rowregs_launch
                : variant == 6  ? tlc_softmax_rowregs512_bf16_softmax_rowregs_launch
                : variant == 7  ? tlc_softmax_parts_s3_softmax_parts_launch
                : variant == 8  ? tlc_softmax_parts_s4_softmax_parts_launch
                : variant == 9  ? tlc_softmax_parts_h16s3_softmax_parts_launch
                : variant == 10 ? tlc_softmax_parts_h16s4_softmax_parts_launch
                : variant == 11 ? tlc_softmax_parts_pow2_softmax_parts_launch
                : variant == 12 ? tlc_softmax_parts_pow2s4_softmax_parts_launch
                                : tlc_softmax_prev_softmax_launch;
  return launch(s, x, y, m, n);
}

/// f32 variants of softmax: 1 and 2 as the bf16 variants 5 and 6.
int tlc_bench_softmax_f32_variant(int variant, void *stream, uint64_t x, uint64_t y, int64_t m,
                                  int64_t n) {
  auto launch = variant == 1 ? tlc_softmax_rowregs_f32_softmax_rowregs_launch
                             : tlc_softmax_rowregs512_f32_softmax_rowregs_launch;
  return launch(static_cast<CUstream>(stream), x, y, m, n);
}

/// rmsnorm (bf16) 1: BLOCKS = 1, 2: before the rings, 3: 512 threads, 4: before configuration 0,
/// long rows in two sweeps only (bench/experiments/rmsnorm_sweeps.tile).
int tlc_bench_rmsnorm_variant(int variant, void *stream, uint64_t x, uint64_t w, uint64_t y,
                              float eps, int64_t m, int64_t n) {
  auto launch = variant == 1   ? tlc_rmsnorm_b1_rmsnorm_launch
                : variant == 3 ? tlc_rmsnorm_nt512_rmsnorm_launch
                : variant == 4 ? tlc_rmsnorm_sweeps_rmsnorm_launch
                               : tlc_rmsnorm_prev_rmsnorm_launch;
  return launch(static_cast<CUstream>(stream), x, w, y, eps, m, n);
}

/// layernorm (bf16) 1: BLOCKS = 1, 2: before the rings, 3: 512 threads, 4: deviations kept in
/// registers (bench/experiments/layernorm_dev.tile), 5 and 6: also W and B in registers
/// (bench/experiments/layernorm_wb.tile) on 256 threads (3 blocks) and 512 (2 blocks), 7: before
/// configuration 2, long rows in two sweeps only (bench/experiments/layernorm_sweeps.tile).
int tlc_bench_layernorm_variant(int variant, void *stream, uint64_t x, uint64_t w, uint64_t b,
                                uint64_t y, float eps, int64_t m, int64_t n) {
  auto launch = variant == 1   ? tlc_layernorm_b1_layernorm_launch
                : variant == 3 ? tlc_layernorm_nt512_layernorm_launch
                : variant == 4 ? tlc_layernorm_dev_layernorm_launch
                : variant == 5 ? tlc_layernorm_wb_layernorm_launch
                : variant == 6 ? tlc_layernorm_wb512_layernorm_launch
                : variant == 7 ? tlc_layernorm_sweeps_layernorm_launch
                               : tlc_layernorm_prev_layernorm_launch;
  return launch(static_cast<CUstream>(stream), x, w, b, y, eps, m, n);
}

/// fp8_cast.tile's per-tensor cast: Y = f8e4m3(X * scale), X bf16.
int tlc_bench_fp8_cast(void *stream, uint64_t x, uint64_t y, float scale, int64_t m, int64_t n) {
  return tlc_fp8_cast_fp8_cast_launch(static_cast<CUstream>(stream), x, y, scale, m, n);
}

/// attention.tile (bf16, D = 128; Q, K, V, O [B, H, S, D]): the shipped configuration (BM = 64,
/// BN = 64: both gemms on wgmma on sm_90a), full or `causal`; or (`variant` 1, full only) the
/// configuration shipped before 2026-12-04 (BM = 128, BN = 32: mma.sync). `scale` is the softmax
/// scale times log2(e).
int tlc_bench_attention(int causal, int variant, void *stream, uint64_t q, uint64_t k, uint64_t v,
                        uint64_t o, float scale, int64_t b, int64_t h, int64_t s) {
  auto st = static_cast<CUstream>(stream);
  if (causal)
    return tlc_attention_causal_attention_fwd_launch(st, q, k, v, o, scale, b, h, s);
  return variant ? tlc_attention_bm128_bn32_attention_fwd_launch(st, q, k, v, o, scale, b, h, s)
                 : tlc_attention_attention_fwd_launch(st, q, k, v, o, scale, b, h, s);
}

/// attention.tile built for f16 with D = 64 (the shipped configurations: 128-key blocks without
/// a mask on sm_90a), full or causal, on the same tensors as tlc_bench_attention.
int tlc_bench_attention_d64(int causal, void *stream, uint64_t q, uint64_t k, uint64_t v,
                            uint64_t o, float scale, int64_t b, int64_t h, int64_t s) {
  auto st = static_cast<CUstream>(stream);
  if (causal)
    return tlc_attention_f16_d64_causal_attention_fwd_launch(st, q, k, v, o, scale, b, h, s);
  return tlc_attention_f16_d64_attention_fwd_launch(st, q, k, v, o, scale, b, h, s);
}

/// attention_gqa.tile (bf16, D = 128, GROUP = 4): Q and O [B, H, S, D], K and V [B, HKV, S, D]
/// with HKV = H / 4; full or causal.
int tlc_bench_attention_gqa(int causal, void *stream, uint64_t q, uint64_t k, uint64_t v,
                            uint64_t o, float scale, int64_t b, int64_t h, int64_t s, int64_t hkv) {
  auto st = static_cast<CUstream>(stream);
  if (causal)
    return tlc_attention_gqa_causal_attention_gqa_fwd_launch(st, q, k, v, o, scale, b, h, s, hkv);
  return tlc_attention_gqa_attention_gqa_fwd_launch(st, q, k, v, o, scale, b, h, s, hkv);
}

/// attention_decode.tile (bf16, D = 128): the split kernel over Q [B, HKV, R, D] and K, V
/// [B, HKV, S, D] into the scratch Op [B, HKV, NS, R, D] (f32) and Lse [B, HKV, NS, R], then the
/// combine into O [B, HKV, R, D]. `scale` is the softmax scale times log2(e). `variant` 1: the
/// split kernel with 4 ring stages; 2: 64-key blocks, 2 stages (the combine is the same).
int tlc_bench_attention_decode(int variant, void *stream, uint64_t q, uint64_t k, uint64_t v,
                               uint64_t op, uint64_t lse, uint64_t o, float scale, int64_t b,
                               int64_t hkv, int64_t r, int64_t s, int64_t ns) {
  auto st = static_cast<CUstream>(stream);
  auto split = variant == 1   ? tlc_attention_decode_s4_attention_decode_split_launch
               : variant == 2 ? tlc_attention_decode_bn64_attention_decode_split_launch
                              : tlc_attention_decode_attention_decode_split_launch;
  CUresult result = split(st, q, k, v, op, lse, scale, b, hkv, r, s, ns);
  if (result != CUDA_SUCCESS)
    return static_cast<int>(result);
  return static_cast<int>(
      tlc_attention_decode_attention_decode_combine_launch(st, op, lse, o, b, hkv, ns, r));
}

/// attention_decode.tile's paged split (K, V caches of 64-token pages [pages, 64, HKV, 128], page
/// table [B, MAXP], key counts [B]), then the combine; as tlc_bench_attention_decode otherwise.
int tlc_bench_attention_decode_paged(void *stream, uint64_t q, uint64_t k, uint64_t v,
                                     uint64_t pages, uint64_t lens, uint64_t op, uint64_t lse,
                                     uint64_t o, float scale, int64_t b, int64_t hkv, int64_t r,
                                     int64_t tk, int64_t maxp, int64_t ns) {
  auto st = static_cast<CUstream>(stream);
  CUresult result = tlc_attention_decode_attention_decode_paged_split_launch(
      st, q, k, v, pages, lens, op, lse, scale, b, hkv, r, tk, hkv * 128, maxp, ns);
  if (result != CUDA_SUCCESS)
    return static_cast<int>(result);
  return static_cast<int>(
      tlc_attention_decode_attention_decode_combine_launch(st, op, lse, o, b, hkv, ns, r));
}

/// attention_varlen.tile (bf16, D = 128, packed [total, H, D] and [total, HKV, D] tensors, dense):
/// sequence b has LenQ[b] queries and LenK[b] keys; full or `causal` (bottom-right).
int tlc_bench_attention_varlen(int causal, void *stream, uint64_t q, uint64_t k, uint64_t v,
                               uint64_t o, uint64_t lenq, uint64_t lenk, float scale, int64_t maxq,
                               int64_t h, int64_t tq, int64_t hkv, int64_t tk, int64_t nb) {
  auto launch = causal ? tlc_attention_varlen_causal_attention_varlen_fwd_launch
                       : tlc_attention_varlen_attention_varlen_fwd_launch;
  return static_cast<int>(launch(static_cast<CUstream>(stream), q, k, v, o, lenq, lenk, scale, maxq,
                                 h, tq, h * 128, hkv, tk, hkv * 128, h * 128, nb));
}

/// mla_decode.tile: the split over the keys (contiguous KV [B, S, 576], or with `paged` the cache
/// KVp [TK, 576] in pages of 64 tokens, the page table [B, MAXP] and key counts [B]) into the
/// scratch Op [B, NS, H, 512] and Lse [B, NS, H], then the combine into O [B, H, 512].
int tlc_bench_mla_decode(int paged, void *stream, uint64_t q, uint64_t kv, uint64_t pages,
                         uint64_t lens, uint64_t op, uint64_t lse, uint64_t o, float scale,
                         int64_t b, int64_t h, int64_t s, int64_t ns, int64_t tk, int64_t maxp) {
  auto st = static_cast<CUstream>(stream);
  CUresult result =
      paged ? tlc_mla_decode_mla_decode_paged_split_launch(st, q, kv, pages, lens, op, lse, scale,
                                                           b, h, tk, maxp, ns)
            : tlc_mla_decode_mla_decode_split_launch(st, q, kv, op, lse, scale, b, h, s, ns);
  if (result != CUDA_SUCCESS)
    return static_cast<int>(result);
  return static_cast<int>(tlc_mla_decode_mla_decode_combine_launch(st, op, lse, o, b, ns, h));
}

/// topk.tile: the K largest of each row of X [M, N] into V [M, K] and I [M, K] (i32). `variant`
/// 0: f32, K = 8 (as shipped); 1: f32, K = 2 on 256-column tiles (MoE routing); 2: bf16, K = 50.
int tlc_bench_topk(int variant, void *stream, uint64_t x, uint64_t v, uint64_t i, int64_t m,
                   int64_t n) {
  auto launch = variant == 1   ? tlc_topk_k2_topk_launch
                : variant == 2 ? tlc_topk_bf16_k50_topk_launch
                               : tlc_topk_topk_launch;
  return static_cast<int>(launch(static_cast<CUstream>(stream), x, v, i, m, n));
}

/// fp8_gemm.tile (f8e4m3 A [M, K] and B [N, K], scales SA and SB of one f32 each, bf16 C): the
/// launcher's choice of configuration (`variant` -1) or configuration 0 to 3 of its
/// `configs` (128 x 256, 128 x 192, 128 x 128, 64 x 128 tiles).
int tlc_bench_fp8_gemm(int variant, void *stream, uint64_t a, uint64_t b, uint64_t sa, uint64_t sb,
                       uint64_t c, int64_t m, int64_t k, int64_t n) {
  namespace g = tlc::fp8_gemm::fp8_gemm;
  auto launch = pickVariant(variant, {g::launch, g::variant0::launch, g::variant1::launch,
                                      g::variant2::launch, g::variant3::launch});
  return static_cast<int>(launch(static_cast<CUstream>(stream), a, b, sa, sb, c, m, k, n).code());
}

/// fp8_gemm.tile's fp8_gemm_rowwise (SA [M], SB [N]): the launcher's choice (`variant` -1) or
/// configuration 0 to 3.
int tlc_bench_fp8_gemm_rowwise(int variant, void *stream, uint64_t a, uint64_t b, uint64_t sa,
                               uint64_t sb, uint64_t c, int64_t m, int64_t k, int64_t n) {
  namespace g = tlc::fp8_gemm::fp8_gemm_rowwise;
  auto launch = pickVariant(variant, {g::launch, g::variant0::launch, g::variant1::launch,
                                      g::variant2::launch, g::variant3::launch});
  return static_cast<int>(launch(static_cast<CUstream>(stream), a, b, sa, sb, c, m, k, n).code());
}

/// fp8_gemm.tile's fp8_gemm_blockwise (DeepSeek-V3's scales: SA [M, KB] per 1 x 128 block of A,
/// SB [NB, KB] per 128 x 128 block of B): the launcher's choice (`variant` -1) or configuration
/// 0 or 1 (128 x 128, 64 x 128 tiles).
int tlc_bench_fp8_gemm_blockwise(int variant, void *stream, uint64_t a, uint64_t b, uint64_t sa,
                                 uint64_t sb, uint64_t c, int64_t m, int64_t k, int64_t n,
                                 int64_t kb, int64_t nb) {
  namespace g = tlc::fp8_gemm::fp8_gemm_blockwise;
  auto launch = pickVariant(variant, {g::launch, g::variant0::launch, g::variant1::launch});
  return static_cast<int>(
      launch(static_cast<CUstream>(stream), a, b, sa, sb, c, m, k, n, kb, nb).code());
}

} // extern "C"
