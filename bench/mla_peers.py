#!/usr/bin/env python3
"""kernels/mla_decode.tile (DeepSeek MLA decoding) on the GPU machine, against a torch SDPA
formulation of the same product (two batched matmuls over the shared latent cache, and SDPA's
fused backends where they take the shape), in one process (bench only: nothing in the build or the tests
runs Python).

Loads build/gpu-bin/libtlc_bench_shim.so (bench/bench_shim.cpp) with ctypes and times tlc's MLA
decode (split over the keys + combine, for several split counts NS; contiguous cache and 64-token
pages in shuffled order) and torch's scaled_dot_product_attention on the same bf16 tensors: q
[B, H, 1, 576], k the latent cache [B, 1, S, 576] shared by every head (enable_gqa), v its first
512 columns; with each backend that accepts the shape. Interleaved CUDA events after warm-up,
median of the iterations; every output is checked against a float32 reference first. TFLOP/s
counts 2 B H S (576 + 512); GB/s the cache bytes (B S 576 x 2). FlashMLA publishes about 3000
GB/s memory-bound and 580-660 TFLOP/s compute-bound on the H800.

Usage: python3 bench/mla_peers.py [--shim PATH] [--shapes 64x128x8192] [--splits 1,2,4]
(shapes B x H x S)
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
from norms_peers import DEFAULT_SHIM, Shim, load_shim, time_interleaved  # noqa: E402

DK, DV, PAGE = 576, 512, 64


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shim", default=DEFAULT_SHIM)
    p.add_argument("--shapes", default="64x128x8192,128x128x4096,16x128x32768")
    p.add_argument("--splits", default="1,2,4,8")
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args()
    lib = load_shim(args.shim)
    i64, u64, f32, ptr, i32 = (ctypes.c_int64, ctypes.c_uint64, ctypes.c_float,
                               ctypes.c_void_p, ctypes.c_int)
    lib.tlc_bench_mla_decode.argtypes = [i32, ptr, u64, u64, u64, u64, u64, u64, u64, f32, i64,
                                         i64, i64, i64, i64, i64]
    lib.tlc_bench_mla_decode.restype = ctypes.c_int
    shim = Shim(lib)
    torch.cuda.init()
    shim("tlc_bench_init", torch.cuda.current_device())
    ok = True
    for shape in args.shapes.split(","):
        b, h, s = (int(x) for x in shape.split("x"))
        gen = torch.Generator(device="cuda").manual_seed(1)
        q = torch.randn(b, h, DK, device="cuda", dtype=torch.bfloat16, generator=gen)
        kv = torch.randn(b, s, DK, device="cuda", dtype=torch.bfloat16, generator=gen)
        scale = 1.0 / math.sqrt(DK)
        out = torch.full((b, h, DV), float("nan"), device="cuda", dtype=torch.bfloat16)
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        # The paged cache: each sequence's tokens in 64-token pages, the pages shuffled.
        per_seq = (s + PAGE - 1) // PAGE
        pages = torch.nn.functional.pad(kv, (0, 0, 0, per_seq * PAGE - s))
        pages = pages.reshape(b * per_seq, PAGE, DK)
        perm = torch.randperm(b * per_seq, device="cuda", generator=gen)
        cache = torch.empty_like(pages)
        cache[perm] = pages
        table = perm.to(torch.int32).reshape(b, per_seq).contiguous()
        lens = torch.full((b,), s, device="cuda", dtype=torch.int32)
        scratch = {}

        def tlc(ns, paged):
            if ns not in scratch:
                scratch[ns] = (torch.empty(b, ns, h, DV, device="cuda", dtype=torch.float32),
                               torch.empty(b, ns, h, device="cuda", dtype=torch.float32))
            op, lse = scratch[ns]
            shim("tlc_bench_mla_decode", int(paged), stream, q.data_ptr(),
                 (cache if paged else kv).data_ptr(), table.data_ptr(), lens.data_ptr(),
                 op.data_ptr(), lse.data_ptr(), out.data_ptr(), scale * math.log2(math.e), b, h,
                 s, ns, b * per_seq * PAGE, per_seq)
            return out

        q4, k4, v4 = q.unsqueeze(2), kv.unsqueeze(1), kv[..., :DV].unsqueeze(1)

        def sdpa(backend):
            with sdpa_kernel([backend]):
                return F.scaled_dot_product_attention(q4, k4, v4, scale=scale,
                                                      enable_gqa=True).squeeze(2)

        fns = {}
        for ns in (int(x) for x in args.splits.split(",")):
            fns[f"tlc NS={ns}"] = lambda ns=ns: tlc(ns, False)
            fns[f"tlc paged NS={ns}"] = lambda ns=ns: tlc(ns, True)
        # The formulation MLA implementations fall back to: two batched matmuls over the shared
        # latent cache (no per-head copy of it), the softmax in f32.
        def torch_matmul():
            scores = torch.matmul(q, kv.transpose(1, 2)).float() * scale
            return torch.matmul(torch.softmax(scores, dim=-1).to(q.dtype), kv[..., :DV])

        fns["torch matmul"] = torch_matmul
        # SDPA's math backend would expand the shared cache to every head (B H S 576 elements):
        # not run. The fused backends take head dimensions up to 256 at most: tried anyway.
        for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                              ("flash", SDPBackend.FLASH_ATTENTION),
                              ("efficient", SDPBackend.EFFICIENT_ATTENTION)):
            try:
                sdpa(backend)
                torch.cuda.synchronize()
                fns[f"sdpa {name}"] = lambda backend=backend: sdpa(backend)
            except RuntimeError as e:
                print(f"NOTE mla {shape} sdpa {name}: not run ({str(e).splitlines()[0][:100]})")
        # The float32 reference, in the same two products (the cache is not expanded per head).
        kvf = kv.float()
        ref = torch.matmul(torch.softmax(torch.matmul(q.float(), kvf.transpose(1, 2)) * scale,
                                         dim=-1), kvf[..., :DV])
        del kvf
        for name, fn in fns.items():
            if name.startswith("tlc"):
                out.fill_(float("nan"))
            err = (fn().float() - ref).abs().max().item()
            good = math.isfinite(err) and err < 2e-2
            ok &= good
            print(f"CHECK mla {shape} {name}: max abs err {err:.2e} {'ok' if good else 'WRONG'}",
                  flush=True)
        times = time_interleaved(fns, args.warmup, args.iters)
        flops = 2.0 * b * h * s * (DK + DV)
        cache_bytes = 2.0 * b * s * DK
        for name, ms in times.items():
            print(f"MLA {shape} {name:18s} ms={ms:.4f} TFLOPs={flops / ms / 1e9:.1f} "
                  f"GB/s={cache_bytes / ms / 1e6:.0f}", flush=True)
    print("mla_peers:", "all outputs checked" if ok else "WRONG OUTPUTS")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
