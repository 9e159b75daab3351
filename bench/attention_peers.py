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

With --d64: the f16 D = 64 build of attention.tile (shapes B x H x S x 64). With --gqa HKV:
kernels/attention_gqa.tile (bf16, D = 128, 4 query heads per K/V head: H = 4 HKV), against SDPA
with enable_gqa on K and V of HKV heads.

Usage: python3 bench/attention_peers.py [--shim PATH] [--shapes 4x32x4096x128] [--iters 20]
       python3 bench/attention_peers.py --d64 [--shapes 4x32x4096x64]
       python3 bench/attention_peers.py --gqa 8 [--shapes 4x32x4096x128]
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
    p.add_argument("--d64", action="store_true", help="the f16 D = 64 build")
    p.add_argument("--gqa", type=int, default=0, metavar="HKV", help="attention_gqa, HKV heads")
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
    lib.tlc_bench_attention_d64.argtypes = [i32, ptr, u64, u64, u64, u64, f32, i64, i64, i64]
    lib.tlc_bench_attention_d64.restype = ctypes.c_int
    lib.tlc_bench_attention_gqa.argtypes = [i32, ptr, u64, u64, u64, u64, f32, i64, i64, i64, i64]
    lib.tlc_bench_attention_gqa.restype = ctypes.c_int
    if args.d64 and args.shapes == p.get_default("shapes"):
        args.shapes = "4x32x4096x64"
    dtype = torch.float16 if args.d64 else torch.bfloat16
    shim = Shim(lib)
    torch.cuda.init()
    shim("tlc_bench_init", torch.cuda.current_device())
    ok = True
    for shape in args.shapes.split(","):
        b, h, s, d = (int(x) for x in shape.split("x"))
        if (args.d64 and d != 64) or (args.gqa and (d != 128 or h != 4 * args.gqa)) or (
                not args.d64 and not args.gqa and d != 128):
            print(f"attention_peers: shape {shape} does not fit this build", file=sys.stderr)
            return 2
        hkv = args.gqa or h
        gen = torch.Generator(device="cuda").manual_seed(1)
        q = torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=gen)
        k, v = (torch.randn(b, hkv, s, d, device="cuda", dtype=dtype, generator=gen)
                for _ in range(2))
        scale = 1.0 / math.sqrt(d)
        for causal in (False, True):
            out = torch.full_like(q, float("nan"))
            stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

            def tlc(variant, out=out, causal=causal, stream=stream):
                ptrs = (q.data_ptr(), k.data_ptr(), v.data_ptr(), out.data_ptr(),
                        scale * math.log2(math.e), b, h, s)
                if args.gqa:
                    shim("tlc_bench_attention_gqa", int(causal), stream, *ptrs, hkv)
                elif args.d64:
                    shim("tlc_bench_attention_d64", int(causal), stream, *ptrs)
                else:
                    shim("tlc_bench_attention", int(causal), variant, stream, *ptrs)

            def sdpa(backend, causal=causal):
                with sdpa_kernel([backend]):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=causal,
                                                          enable_gqa=bool(args.gqa))

            fns = {"tlc": lambda: tlc(0)}
            if not causal and not args.d64 and not args.gqa:
                fns["tlc BM=128 BN=32 (mma.sync)"] = lambda: tlc(1)
            for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                  ("flash", SDPBackend.FLASH_ATTENTION)):
                try:  # a backend may refuse a case (GQA, a head dim): say so and go on
                    sdpa(backend)
                    fns[name] = lambda backend=backend: sdpa(backend)
                except RuntimeError as err:
                    print(f"attention_peers: {name} refused {shape}: {str(err).splitlines()[0]}")
            # Correctness first: every output against a float32 reference.
            with sdpa_kernel([SDPBackend.MATH]):
                ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                     is_causal=causal, enable_gqa=bool(args.gqa))
            ok &= check_attention_outputs(
                fns, out, ref, f"attention {shape} {'causal' if causal else 'full'}")
            times = time_interleaved(fns, args.warmup, args.iters)
            flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
            kind = ("gqa " if args.gqa else "") + ("causal" if causal else "full")
            for name, ms in times.items():
                ratios = "".join(f" x_{peer}={times[peer] / ms:.3f}" for peer in ("cudnn", "flash")
                                 if peer in times)
                print(f"ATTN {shape} {kind} {name:28s} ms={ms:.3f} TFLOPs={flops / ms / 1e9:.1f}"
                      f"{ratios}", flush=True)
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
