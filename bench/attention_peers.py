#!/usr/bin/env python3
"""kernels/attention.tile against torch's SDPA backends on the GPU machine, in one process (bench
only: nothing in the build or the tests runs Python).

Loads build/gpu-bin/libtlc_bench_shim.so (bench/bench_shim.cpp) with ctypes and times tlc's
attention (the shipped BM = 64, BN = 64 build: both gemms on wgmma on sm_90a; full also the
BM = 128, BN = 32 build shipped before, on mma.sync) and torch's scaled_dot_product_attention
with the cuDNN and flash backends on the same bf16 tensors [B, H, S, D], on torch's current
stream, interleaved with CUDA events after warm-up (norms_peers.time_interleaved), median of the
iterations. Before timing, each output is checked against a float32 reference (torch's math
backend on float32 copies). TFLOP/s counts 4 B H S^2 D (half of it causal).

With --varlen: kernels/attention_varlen.tile on a batch of sequences of random lengths packed
without padding ([total, H, D]), against torch's SDPA on the same sequences as a jagged nested
tensor (flash backend, where this torch supports it) and on the batch padded to the longest
sequence (cuDNN and flash; they compute the padding too). TFLOP/s counts the real sequences.

Usage: python3 bench/attention_peers.py [--shim PATH] [--shapes 4x32x4096x128] [--iters 20]
       python3 bench/attention_peers.py --varlen [--varlen-batch 16x32x512x4096]
(varlen: batch x heads x shortest x longest, D = 128, bf16)
"""

import argparse
import ctypes
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from norms_peers import (DEFAULT_SHIM, Shim, check_attention_outputs, load_shim,  # noqa: E402
                         time_interleaved)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shim", default=DEFAULT_SHIM)
    p.add_argument("--shapes", default="4x32x4096x128")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--varlen", action="store_true")
    p.add_argument("--varlen-batch", default="16x32x512x4096")
    args = p.parse_args()
    if args.varlen:
        return run_varlen(args)
    lib = load_shim(args.shim)
    i64, u64, f32, ptr, i32 = (ctypes.c_int64, ctypes.c_uint64, ctypes.c_float,
                               ctypes.c_void_p, ctypes.c_int)
    lib.tlc_bench_attention.argtypes = [i32, i32, ptr, u64, u64, u64, u64, f32, i64, i64, i64]
    lib.tlc_bench_attention.restype = ctypes.c_int
    shim = Shim(lib)
    torch.cuda.init()
    shim("tlc_bench_init", torch.cuda.current_device())
    ok = True
    for shape in args.shapes.split(","):
        b, h, s, d = (int(x) for x in shape.split("x"))
        gen = torch.Generator(device="cuda").manual_seed(1)
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=gen)
                   for _ in range(3))
        scale = 1.0 / math.sqrt(d)
        for causal in (False, True):
            out = torch.full_like(q, float("nan"))
            stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

            def tlc(variant, out=out, causal=causal, stream=stream):
                shim("tlc_bench_attention", int(causal), variant, stream, q.data_ptr(),
                     k.data_ptr(), v.data_ptr(), out.data_ptr(), scale * math.log2(math.e), b, h,
                     s)

            def sdpa(backend, causal=causal):
                with sdpa_kernel([backend]):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

            fns = {"tlc": lambda: tlc(0)}
            if not causal:
                fns["tlc BM=128 BN=32 (mma.sync)"] = lambda: tlc(1)
            fns["cudnn"] = lambda: sdpa(SDPBackend.CUDNN_ATTENTION)
            fns["flash"] = lambda: sdpa(SDPBackend.FLASH_ATTENTION)
            # Correctness first: every output against a float32 reference.
            with sdpa_kernel([SDPBackend.MATH]):
                ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                     is_causal=causal)
            ok &= check_attention_outputs(
                fns, out, ref, f"attention {shape} {'causal' if causal else 'full'}")
            times = time_interleaved(fns, args.warmup, args.iters)
            flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
            for name, ms in times.items():
                print(f"ATTN {shape} {'causal' if causal else 'full'} {name:28s} ms={ms:.3f} "
                      f"TFLOPs={flops / ms / 1e9:.1f} x_cudnn={times['cudnn'] / ms:.3f} "
                      f"x_flash={times['flash'] / ms:.3f}", flush=True)
    print("attention_peers:", "all outputs checked" if ok else "WRONG OUTPUTS")
    return 0 if ok else 1


def run_varlen(args):
    """tlc's varlen attention against SDPA on a jagged nested tensor and on the padded batch."""
    lib = load_shim(args.shim)
    i64, u64, f32, ptr, i32 = (ctypes.c_int64, ctypes.c_uint64, ctypes.c_float,
                               ctypes.c_void_p, ctypes.c_int)
    lib.tlc_bench_attention_varlen.argtypes = [i32, ptr, u64, u64, u64, u64, u64, u64, f32, i64,
                                               i64, i64, i64, i64, i64]
    lib.tlc_bench_attention_varlen.restype = ctypes.c_int
    shim = Shim(lib)
    torch.cuda.init()
    shim("tlc_bench_init", torch.cuda.current_device())
    nb, h, shortest, longest = (int(x) for x in args.varlen_batch.split("x"))
    d = 128
    gen = torch.Generator(device="cuda").manual_seed(1)
    lens = torch.randint(shortest, longest + 1, (nb,), device="cuda", generator=gen,
                         dtype=torch.int32)
    total, maxq = int(lens.sum()), int(lens.max())
    q, k, v = (torch.randn(total, h, d, device="cuda", dtype=torch.bfloat16, generator=gen)
               for _ in range(3))
    offsets = [0] + torch.cumsum(lens, 0).tolist()
    scale = 1.0 / math.sqrt(d)
    stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
    # [B, H, S, D] views: padded copies, and a jagged nested tensor of the sequences.
    padded = [torch.zeros(nb, h, maxq, d, device="cuda", dtype=torch.bfloat16) for _ in range(3)]
    for b in range(nb):
        for t, src in zip(padded, (q, k, v)):
            t[b, :, :offsets[b + 1] - offsets[b]] = src[offsets[b]:offsets[b + 1]].transpose(0, 1)
    try:
        nested = [torch.nested.nested_tensor_from_jagged(
            t, offsets=torch.tensor(offsets, device="cuda", dtype=torch.int64)).transpose(1, 2)
            for t in (q, k, v)]
    except (RuntimeError, AttributeError, TypeError) as e:
        nested = None
        print(f"NOTE varlen: no jagged nested tensors ({str(e).splitlines()[0][:100]})")
    ok = True
    for causal in (False, True):
        out = torch.full_like(q, float("nan"))

        def tlc(causal=causal, out=out):
            shim("tlc_bench_attention_varlen", int(causal), stream, q.data_ptr(), k.data_ptr(),
                 v.data_ptr(), out.data_ptr(), lens.data_ptr(), lens.data_ptr(),
                 scale * math.log2(math.e), maxq, h, total, h, total, nb)

        def sdpa_padded(backend, causal=causal):
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(*padded, is_causal=causal)

        def sdpa_nested(causal=causal):
            with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                return F.scaled_dot_product_attention(*nested, is_causal=causal)

        fns = {"tlc varlen": tlc,
               "cudnn (padded)": lambda: sdpa_padded(SDPBackend.CUDNN_ATTENTION),
               "flash (padded)": lambda: sdpa_padded(SDPBackend.FLASH_ATTENTION)}
        if nested is not None:
            try:
                sdpa_nested()
                fns["flash (jagged)"] = sdpa_nested
            except RuntimeError as e:
                print(f"NOTE varlen: jagged SDPA not run ({str(e).splitlines()[0][:100]})")
        # Correctness: every sequence of tlc's output against float32 SDPA of that sequence.
        tlc()
        worst = 0.0
        for b in range(nb):
            lo, hi = offsets[b], offsets[b + 1]
            qs, ks, vs = (t[lo:hi].transpose(0, 1).float() for t in (q, k, v))
            with sdpa_kernel([SDPBackend.MATH]):
                want = F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal)
            worst = max(worst, (out[lo:hi].transpose(0, 1).float() - want).abs().max().item())
        good = math.isfinite(worst) and worst < 2e-2
        ok &= good
        label = f"{args.varlen_batch} {'causal' if causal else 'full'}"
        print(f"CHECK varlen {label}: max abs err {worst:.2e} {'ok' if good else 'WRONG'}",
              flush=True)
        times = time_interleaved(fns, args.warmup, args.iters)
        real = sum((offsets[b + 1] - offsets[b]) ** 2 for b in range(nb))
        flops = 4.0 * h * real * d * (0.5 if causal else 1.0)
        for name, ms in times.items():
            print(f"VARLEN {label} {name:16s} ms={ms:.3f} TFLOPs={flops / ms / 1e9:.1f} "
                  f"x_cudnn_padded={times['cudnn (padded)'] / ms:.3f}", flush=True)
    print("attention_peers --varlen:", "all outputs checked" if ok else "WRONG OUTPUTS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
