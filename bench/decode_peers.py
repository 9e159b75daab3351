#!/usr/bin/env python3
"""kernels/attention_decode.tile against torch's SDPA backends on the GPU machine, in one process
(bench only: nothing in the build or the tests runs Python).
Loads build/gpu-bin/libtlc_bench_shim.so (bench/bench_shim.cpp) with ctypes and times tlc's
flash-decoding (split kernel + combine, for several split counts NS) and torch's
scaled_dot_product_attention with each backend that accepts the shape (cuDNN, flash, efficient;
GQA through enable_gqa) on the same bf16 tensors: q [B, H, Sq, D], k and v [B, HKV, S, D]; tlc
reads q as [B, HKV, GROUP * Sq, D] (the same memory). Interleaved CUDA-event timing after
warm-up (norms_peers.time_interleaved), median of the iterations; every output is checked
against a float32 reference first. GB/s counts the K/V bytes (2 B HKV S D x 2 bytes): decoding
is memory bound. "tlc paged" reads the same keys and values from a cache of 64-token pages in a
shuffled order (attention_decode_paged_split, vLLM's layout [pages, 64, HKV, D] and a page
table), the cost of the indirection against the contiguous split.
Usage: python3 bench/decode_peers.py [--shim PATH] [--shapes 16x32x32x8192x1] [--iters 20]
(shapes B x H x HKV x S x Sq, D = 128)
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
    p.add_argument("--shapes", default="16x32x32x8192x1,16x32x8x8192x1")
    p.add_argument("--splits", default="1,2,4,8,16")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args()
    lib = load_shim(args.shim)
    i64, u64, f32, ptr = ctypes.c_int64, ctypes.c_uint64, ctypes.c_float, ctypes.c_void_p
    lib.tlc_bench_attention_decode.argtypes = [ctypes.c_int, ptr, u64, u64, u64, u64, u64, u64,
                                               f32, i64, i64, i64, i64, i64]
    lib.tlc_bench_attention_decode.restype = ctypes.c_int
    lib.tlc_bench_attention_decode_paged.argtypes = [ptr, u64, u64, u64, u64, u64, u64, u64, u64,
                                                     f32, i64, i64, i64, i64, i64, i64]
    lib.tlc_bench_attention_decode_paged.restype = ctypes.c_int
    shim = Shim(lib)
    torch.cuda.init()
    shim("tlc_bench_init", torch.cuda.current_device())
    ok = True
    d = 128
    for shape in args.shapes.split(","):
        b, h, hkv, s, sq = (int(x) for x in shape.split("x"))
        group = h // hkv
        r = group * sq
        gen = torch.Generator(device="cuda").manual_seed(1)
        q = torch.randn(b, h, sq, d, device="cuda", dtype=torch.bfloat16, generator=gen)
        k, v = (torch.randn(b, hkv, s, d, device="cuda", dtype=torch.bfloat16, generator=gen)
                for _ in range(2))
        scale = 1.0 / math.sqrt(d)
        out = torch.full_like(q, float("nan"))
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        scratch = {}

        def tlc(ns, variant=0, out=out):
            if ns not in scratch:
                scratch[ns] = (torch.empty(b, hkv, ns, r, d, device="cuda", dtype=torch.float32),
                               torch.empty(b, hkv, ns, r, device="cuda", dtype=torch.float32))
            op, lse = scratch[ns]
            shim("tlc_bench_attention_decode", variant, stream, q.data_ptr(), k.data_ptr(), v.data_ptr(),
                 op.data_ptr(), lse.data_ptr(), out.data_ptr(), scale * math.log2(math.e), b,
                 hkv, r, s, ns)

        # The paged cache: each sequence's keys in 64-token pages, the pages shuffled.
        page = 64
        per_seq = (s + page - 1) // page
        pad = per_seq * page - s

        def paged(x):
            x = torch.nn.functional.pad(x.permute(0, 2, 1, 3), (0, 0, 0, 0, 0, pad))
            return x.reshape(b * per_seq, page, hkv, d)

        perm = torch.randperm(b * per_seq, device="cuda", generator=gen)
        kc, vc = torch.empty_like(paged(k)), torch.empty_like(paged(v))
        kc[perm], vc[perm] = paged(k), paged(v)
        table = perm.to(torch.int32).reshape(b, per_seq).contiguous()
        lens = torch.full((b,), s, device="cuda", dtype=torch.int32)

        def tlc_paged(ns, out=out):
            if ns not in scratch:
                tlc(ns)
            op, lse = scratch[ns]
            shim("tlc_bench_attention_decode_paged", stream, q.data_ptr(), kc.data_ptr(),
                 vc.data_ptr(), table.data_ptr(), lens.data_ptr(), op.data_ptr(), lse.data_ptr(),
                 out.data_ptr(), scale * math.log2(math.e), b, hkv, r, b * per_seq * page,
                 per_seq, ns)

        def sdpa(backend):
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q, k, v, enable_gqa=group > 1)

        fns = {}
        # variant 0: the shipped build (3 stages); 1: 4 ring stages; 2: 64-key blocks, 2 stages.
        for variant, tag in ((0, ""), (1, " S4"), (2, " BN64")):
            for ns in (int(x) for x in args.splits.split(",")):
                fns[f"tlc{tag} NS={ns}"] = lambda ns=ns, variant=variant: tlc(ns, variant)
        for ns in (int(x) for x in args.splits.split(",")):
            fns[f"tlc paged NS={ns}"] = lambda ns=ns: tlc_paged(ns)
        with sdpa_kernel([SDPBackend.MATH]):
            ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                 enable_gqa=group > 1)
        for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                              ("flash", SDPBackend.FLASH_ATTENTION),
                              ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
            try:
                sdpa(backend)
                torch.cuda.synchronize()
                fns[name] = lambda backend=backend: sdpa(backend)
            except RuntimeError as e:
                print(f"NOTE decode {shape} {name}: not run ({str(e).splitlines()[0][:100]})")
        ok &= check_attention_outputs(fns, out, ref, f"decode {shape}")
        times = time_interleaved(fns, args.warmup, args.iters)
        kv_bytes = 2.0 * b * hkv * s * d * 2
        peer = times.get("cudnn")
        for name, ms in times.items():
            ratio = f" x_cudnn={peer / ms:.3f}" if peer else ""
            print(f"DECODE {shape} {name:19s} ms={ms:.4f} GB/s={kv_bytes / ms / 1e6:.0f}{ratio}",
                  flush=True)
    print("decode_peers:", "all outputs checked" if ok else "WRONG OUTPUTS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
