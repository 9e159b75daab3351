#!/usr/bin/env python3
"""kernels/topk.tile against torch.topk on the GPU machine, in one process (bench only: nothing in
the build or the tests runs Python).

Loads build/gpu-bin/libtlc_bench_shim.so (bench/bench_shim.cpp) with ctypes and times tlc's top-K
over rows and torch.topk (sorted, largest) on the same tensors, interleaved with CUDA events after
warm-up (norms_peers.time_interleaved), median of the iterations. Cases: MoE routing (f32 router
logits [tokens, experts], K = 2: the shim's variant 1), K = 8 (variant 0) and sampling (bf16 logits
[batch, vocabulary], K = 50: variant 2). Each output is checked against torch.topk first (the same
values; the same columns where values are distinct). GB/s counts the bytes of X read once.

Usage: python3 bench/topk_peers.py [--shim PATH] [--iters 20]
"""

import argparse
import ctypes
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from norms_peers import DEFAULT_SHIM, Shim, load_shim, time_interleaved  # noqa: E402

CASES = [  # (variant, dtype, K, M, N)
    (1, torch.float32, 2, 16384, 64), (1, torch.float32, 2, 16384, 256),
    (0, torch.float32, 8, 16384, 256), (0, torch.float32, 8, 4096, 4096),
    (2, torch.bfloat16, 50, 64, 32000), (2, torch.bfloat16, 50, 64, 128256),
    (2, torch.bfloat16, 50, 512, 128256),
]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shim", default=DEFAULT_SHIM)
    p.add_argument("--warmup", type=int, default=5)
    p.add_argument("--iters", type=int, default=20)
    args = p.parse_args()
    lib = load_shim(args.shim)
    i64, u64, ptr, i32 = ctypes.c_int64, ctypes.c_uint64, ctypes.c_void_p, ctypes.c_int
    lib.tlc_bench_topk.argtypes = [i32, ptr, u64, u64, u64, i64, i64]
    lib.tlc_bench_topk.restype = ctypes.c_int
    shim = Shim(lib)
    torch.cuda.init()
    shim("tlc_bench_init", torch.cuda.current_device())
    ok = True
    for variant, dtype, k, m, n in CASES:
        gen = torch.Generator(device="cuda").manual_seed(1)
        x = torch.randn(m, n, device="cuda", generator=gen).to(dtype)
        v = torch.empty(m, k, device="cuda", dtype=dtype)
        i = torch.empty(m, k, device="cuda", dtype=torch.int32)
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

        def tlc(x=x, v=v, i=i, m=m, n=n, variant=variant):
            shim("tlc_bench_topk", variant, stream, x.data_ptr(), v.data_ptr(), i.data_ptr(), m, n)

        fns = {"tlc": tlc, "torch.topk": lambda x=x, k=k: torch.topk(x, k, dim=1)}
        v.fill_(float("nan"))
        tlc()
        want = torch.topk(x, k, dim=1)
        good = torch.equal(v, want.values) and torch.equal(
            x.gather(1, i.long()), want.values)
        ok &= good
        label = f"{str(dtype).split('.')[-1]} M={m} N={n} K={k}"
        print(f"CHECK topk {label}: {'ok' if good else 'WRONG'}", flush=True)
        times = time_interleaved(fns, args.warmup, args.iters)
        peer = times["torch.topk"]
        for name, ms in times.items():
            gbs = x.numel() * x.element_size() / (ms * 1e-3) / 1e9
            print(f"TOPK {label:32s} {name:10s} ms={ms:.4f} GB/s={gbs:7.0f} "
                  f"vs_torch={peer / ms:.3f}", flush=True)
    print("ALL OK" if ok else "SOME WRONG")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
