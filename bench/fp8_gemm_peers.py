#!/usr/bin/env python3
"""kernels/fp8_gemm.tile against torch._scaled_mm (cuBLASLt's fp8 GEMM) on the GPU machine, in
one process (bench only: nothing in the build or the tests runs Python).

Loads build/gpu-bin/libtlc_bench_shim.so (bench/bench_shim.cpp) with ctypes and times tlc's
fp8_gemm (the launcher's choice of configuration, and each configuration alone) and
torch._scaled_mm on the same f8e4m3 tensors: A [M, K] row-major, B [N, K] row-major (passed to
_scaled_mm as B.t(), the column-major operand it wants), per-tensor f32 scales, bf16 output. The
bf16 GEMM of the same shape (torch.matmul, cuBLAS) is timed beside them for reference. Interleaved
CUDA events after warm-up on torch's current stream (norms_peers.time_interleaved), median of the
iterations. Before timing, each output is checked against a float32 reference computed from the
decoded fp8 values. TFLOP/s counts 2 M N K.

With --rowwise: fp8_gemm_rowwise (a scale per row of A and of B) against torch._scaled_mm with
the same row-wise scales.

With --blockwise: fp8_gemm_blockwise (DeepSeek-V3's scales, one per 1 x 128 block of A and per
128 x 128 block of B) against a torch formulation of the same product (dequantize both operands
to bf16 with their block scales, then one bf16 matmul) and, as the speed a per-tensor-scaled
product reaches, torch._scaled_mm on the same operands.

Usage: python3 bench/fp8_gemm_peers.py [--shim PATH] [--shapes 4096x4096x4096,...] [--iters 20]
"""

import argparse
import ctypes
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from norms_peers import DEFAULT_SHIM, Shim, load_shim, time_interleaved  # noqa: E402

DEFAULT_SHAPES = ("8192x8192x8192,4096x4096x4096,2048x2048x2048,8192x8192x1024,"
                  "4096x8192x512,64x8192x8192,16x8192x8192,4000x3000x4000")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shim", default=DEFAULT_SHIM)
    p.add_argument("--shapes", default=DEFAULT_SHAPES, help="MxNxK,...")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--variants", action="store_true", help="also each configuration alone")
    p.add_argument("--blockwise", action="store_true",
                   help="time fp8_gemm_blockwise (DeepSeek-V3 scales) instead")
    p.add_argument("--rowwise", action="store_true",
                   help="time fp8_gemm_rowwise against _scaled_mm's rowwise scaling instead")
    args = p.parse_args()
    lib = load_shim(args.shim)
    i64, u64, ptr, i32 = ctypes.c_int64, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_int
    lib.tlc_bench_fp8_gemm.argtypes = [i32, ptr, u64, u64, u64, u64, u64, i64, i64, i64]
    lib.tlc_bench_fp8_gemm.restype = ctypes.c_int
    lib.tlc_bench_fp8_gemm_blockwise.argtypes = [i32, ptr, u64, u64, u64, u64, u64, i64, i64,
                                                 i64, i64, i64]
    lib.tlc_bench_fp8_gemm_blockwise.restype = ctypes.c_int
    lib.tlc_bench_fp8_gemm_rowwise.argtypes = [i32, ptr, u64, u64, u64, u64, u64, i64, i64, i64]
    lib.tlc_bench_fp8_gemm_rowwise.restype = ctypes.c_int
    shim = Shim(lib)
    torch.cuda.init()
    shim("tlc_bench_init", torch.cuda.current_device())
    ok = True
    for shape in args.shapes.split(","):
        m, n, k = (int(x) for x in shape.split("x"))
        gen = torch.Generator(device="cuda").manual_seed(1)
        a32 = torch.randn(m, k, device="cuda", generator=gen)
        b32 = torch.randn(n, k, device="cuda", generator=gen)
        a = a32.to(torch.float8_e4m3fn)
        b = b32.to(torch.float8_e4m3fn)
        sa = torch.tensor([0.5], device="cuda")
        sb = torch.tensor([0.25], device="cuda")
        c = torch.empty(m, n, device="cuda", dtype=torch.bfloat16)
        a16, b16 = a.to(torch.bfloat16), b.to(torch.bfloat16)
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        if args.blockwise:
            ok &= run_blockwise(shim, args, shape, m, n, k, a, b, c, stream)
            continue
        if args.rowwise:
            ok &= run_rowwise(shim, args, shape, m, n, k, a, b, c, stream)
            continue

        fns = tlc_fns(shim, "tlc_bench_fp8_gemm", "tlc", 4 if args.variants else 0, stream,
                      (a, b, sa, sb, c), (m, k, n))
        # torch._scaled_mm takes sizes that are multiples of 16 only; elsewhere the ratios are
        # to the bf16 matmul.
        scaled = m % 16 == 0 and n % 16 == 0 and k % 16 == 0
        if scaled:
            fns["torch._scaled_mm"] = lambda: torch._scaled_mm(a, b.t(), scale_a=sa, scale_b=sb,
                                                               out_dtype=torch.bfloat16)
        fns["bf16 matmul (cuBLAS)"] = lambda: torch.matmul(a16, b16.t())
        # Correctness first: every fp8 output against float32 on the decoded values.
        ref = (a.float() @ b.float().t()) * (sa * sb)
        peer = ("torch._scaled_mm", "vs_scaled_mm") if scaled else ("bf16 matmul (cuBLAS)",
                                                                    "vs_bf16_matmul")
        ok &= check_and_time(args, fns, c, ref, ("fp8_gemm", "FP8GEMM", 24), shape, (m, n, k),
                             peer[0], peer[1], lambda n: n.startswith("bf16"))
    print("ALL OK" if ok else "SOME WRONG")
    return 0 if ok else 1


def run_blockwise(shim, args, shape, m, n, k, a, b, c, stream):
    """Times fp8_gemm_blockwise against the bf16 formulation and torch._scaled_mm."""
    kb, nb = (k + 127) // 128, (n + 127) // 128
    gen = torch.Generator(device="cuda").manual_seed(2)
    sa = torch.rand(m, kb, device="cuda", generator=gen) + 0.5
    sb = torch.rand(nb, kb, device="cuda", generator=gen) + 0.5
    one = torch.tensor([1.0], device="cuda")

    def tlc(variant):
        shim("tlc_bench_fp8_gemm_blockwise", variant, stream, a.data_ptr(), b.data_ptr(),
             sa.data_ptr(), sb.data_ptr(), c.data_ptr(), m, k, n, kb, nb)
        return c

    def torch_blockwise():
        sa_full = sa.repeat_interleave(128, dim=1)[:, :k]
        sb_full = sb.repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k]
        return (a.to(torch.bfloat16) * sa_full.to(torch.bfloat16)) @ (
            b.to(torch.bfloat16) * sb_full.to(torch.bfloat16)).t()

    fns = {"tlc blockwise": lambda: tlc(-1)}
    if args.variants:
        for v in range(2):
            fns[f"tlc blockwise config {v}"] = lambda v=v: tlc(v)
    fns["torch dequant + bf16 matmul"] = torch_blockwise
    fns["torch._scaled_mm (per-tensor)"] = lambda: torch._scaled_mm(
        a, b.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    sa_full = sa.repeat_interleave(128, dim=1)[:, :k]
    sb_full = sb.repeat_interleave(128, dim=0)[:n].repeat_interleave(128, dim=1)[:, :k]
    ref = (a.float() * sa_full) @ (b.float() * sb_full).t()
    return check_and_time(args, fns, c, ref, ("fp8_gemm_blockwise", "FP8BLOCK", 30), shape,
                          (m, n, k), "torch dequant + bf16 matmul", "vs_torch_formulation",
                          lambda n: not n.startswith("tlc"))


def run_rowwise(shim, args, shape, m, n, k, a, b, c, stream):
    """Times fp8_gemm_rowwise against torch._scaled_mm with row-wise scales."""
    gen = torch.Generator(device="cuda").manual_seed(3)
    sa = torch.rand(m, device="cuda", generator=gen) + 0.5
    sb = torch.rand(n, device="cuda", generator=gen) + 0.5

    fns = tlc_fns(shim, "tlc_bench_fp8_gemm_rowwise", "tlc rowwise", 4 if args.variants else 0,
                  stream, (a, b, sa, sb, c), (m, k, n))
    fns["torch._scaled_mm (rowwise)"] = lambda: torch._scaled_mm(
        a, b.t(), scale_a=sa.unsqueeze(1), scale_b=sb.unsqueeze(0), out_dtype=torch.bfloat16)
    ref = (a.float() @ b.float().t()) * sa.unsqueeze(1) * sb.unsqueeze(0)
    return check_and_time(args, fns, c, ref, ("fp8_gemm_rowwise", "FP8ROW", 30), shape,
                          (m, n, k), "torch._scaled_mm (rowwise)", "vs_scaled_mm",
                          lambda n: not n.startswith("tlc"))


def tlc_fns(shim, entry, name, configs, stream, tensors, sizes):
    """{name: fn} for the shim's `entry` on `tensors` (A, B, SA, SB, C) and `sizes` (M, K, N): the
    launcher's choice, then configurations 0 .. configs - 1. Each fn returns C."""
    c = tensors[-1]

    def run(variant):
        shim(entry, variant, stream, *(t.data_ptr() for t in tensors), *sizes)
        return c

    fns = {name: lambda: run(-1)}
    for v in range(configs):
        fns[f"{name} config {v}"] = lambda v=v: run(v)
    return fns


def check_and_time(args, fns, c, ref, labels, shape, mnk, peer_name, ratio_name, unchecked):
    """Checks every output (tlc's written into `c`, poisoned first) against `ref` (max error over
    max |ref| below 1e-2), skipping the names `unchecked` accepts; then times them all and prints
    TFLOP/s and the ratio to `peer_name`. `labels`: the CHECK label, the timing tag and the
    width of the name column. True when every checked output is right."""
    check, tag, width = labels
    m, n, k = mnk
    scale = ref.abs().max().item()
    ok = True
    for name, fn in fns.items():
        if unchecked(name):
            continue
        c.fill_(float("nan"))
        err = ((fn().float() - ref).abs().max() / scale).item()
        good = err == err and err < 1e-2
        ok &= good
        print(f"CHECK {check} {shape} {name}: max err / max |ref| {err:.2e} "
              f"{'ok' if good else 'WRONG'}", flush=True)
    times = time_interleaved(fns, args.warmup, args.iters)
    peer = times[peer_name]
    for name, ms in times.items():
        tflops = 2.0 * m * n * k / (ms * 1e-3) / 1e12
        print(f"{tag} {shape} {name:{width}s} ms={ms:.4f} TFLOP/s={tflops:7.1f} "
              f"{ratio_name}={peer / ms:.3f}", flush=True)
    return ok


if __name__ == "__main__":
    sys.exit(main())
