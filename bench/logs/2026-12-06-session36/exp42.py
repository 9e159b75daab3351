#!/usr/bin/env python3
"""Session 36, exp42: attention.tile on sm_90a with tile-ping-pong's turns (the consumer
warpgroups take turns issuing P V and the next block's Q K^T, FlashAttention-3's ping-pong)
against the serial consumers (the shipped schedule) and torch SDPA (cuDNN, flash), on the same
tensors in one process (CUDA events, interleaved, medians). Builds (build-exp42.sh):
  h_*: D 128 bf16 (BM 128, 8 warps, BN 128): ser / pp, *c causal
  d_*: D 64 f16: ser / pp (BM 192 on 12 warps; causal BM 128 on 8), d_128pp (BM 128, 8 warps)
Usage: exp42.py LIB [--small]
"""
import ctypes
import math
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../bench"))
from norms_peers import time_interleaved  # noqa: E402

GROUPS = {
    (128, torch.bfloat16, False): ["h_ser", "h_pp"],
    (128, torch.bfloat16, True): ["h_serc", "h_ppc"],
    (64, torch.float16, False): ["d_ser", "d_pp", "d_128pp"],
    (64, torch.float16, True): ["d_serc", "d_ppc"],
}


def main():
    lib = ctypes.CDLL(sys.argv[1])
    small = "--small" in sys.argv
    torch.cuda.init()
    torch.zeros(1, device="cuda")
    cu = ctypes.CDLL("libcuda.so.1")
    ctx = ctypes.c_void_p()
    cu.cuCtxGetCurrent(ctypes.byref(ctx))
    if not ctx.value:
        dev = ctypes.c_int()
        cu.cuDeviceGet(ctypes.byref(dev), torch.cuda.current_device())
        cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
        cu.cuCtxSetCurrent(ctx)
    fns = {}
    for names in GROUPS.values():
        for n in names:
            f = getattr(lib, f"{n}_attention_fwd_launch")
            f.argtypes = [ctypes.c_void_p] + [ctypes.c_uint64] * 4 + [ctypes.c_float] + [ctypes.c_int64] * 3
            f.restype = ctypes.c_int
            fns[n] = f

    def call(n, q, k, v, o, scale):
        b, h, s, _ = q.shape
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)
        rc = fns[n](stream, q.data_ptr(), k.data_ptr(), v.data_ptr(), o.data_ptr(),
                    scale * math.log2(math.e), b, h, s)
        if rc != 0:
            raise RuntimeError(f"{n}: CUresult {rc}")

    def tensors(b, h, s, d, dtype, offset, seed):
        gen = torch.Generator(device="cuda").manual_seed(seed)
        out = []
        for _ in range(3):
            flat = torch.randn(b * h * s * d + offset, device="cuda", dtype=dtype, generator=gen)
            out.append(flat[offset:].view(b, h, s, d))
        return out

    only = os.environ.get("EXP42_ONLY")
    if only:
        for key in GROUPS:
            GROUPS[key] = [n for n in GROUPS[key] if n in only.split(",")]
    ok = True
    cases = [(1, 3, 77, 0), (2, 4, 1000, 0), (1, 2, 1, 0), (1, 2, 513, 1), (2, 2, 4096, 0),
             (3, 5, 640, 0), (1, 1, 129, 0), (1, 1, 257, 0)]
    for (b, h, s, offset) in cases:
        for (d, dtype, causal), names in GROUPS.items():
            q, k, v = tensors(b, h, s, d, dtype, offset, s)
            scale = 1.0 / math.sqrt(d)
            with sdpa_kernel([SDPBackend.MATH]):
                ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                     is_causal=causal)
            for n in names:
                o = torch.full_like(q, float("nan"))
                call(n, q, k, v, o, scale)
                torch.cuda.synchronize()
                err = (o.float() - ref).abs().max().item()
                good = math.isfinite(err) and err < 2e-2
                ok &= good
                if not good or s == 4096:
                    print(f"CHECK {n} {b}x{h}x{s} off{offset} err={err:.2e} "
                          f"{'ok' if good else 'FAIL'}", flush=True)
    print("EXP42", "all outputs checked" if ok else "WRONG OUTPUTS", flush=True)
    if small:
        return 0 if ok else 1
    for (d, dtype, causal), names in GROUPS.items():
        shapes = [(4, 32, 4096), (8, 16, 8192)] if d == 128 else [(4, 32, 4096)]
        for (b, h, s) in shapes:
            q, k, v = tensors(b, h, s, d, dtype, 0, 7)
            scale = 1.0 / math.sqrt(d)
            o = torch.empty_like(q)
            t = {n: (lambda n=n: call(n, q, k, v, o, scale)) for n in names}
            for name, backend in (("cudnn", SDPBackend.CUDNN_ATTENTION),
                                  ("flash", SDPBackend.FLASH_ATTENTION)):
                def sdpa(backend=backend, causal=causal):
                    with sdpa_kernel([backend]):
                        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                try:
                    sdpa()
                    t[name] = sdpa
                except RuntimeError as err:
                    print(f"refused {name}: {err}")
            times = time_interleaved(t, 5, 20)
            flops = 4.0 * b * h * s * s * d * (0.5 if causal else 1.0)
            for n, ms in times.items():
                r = "".join(f" x_{p}={times[p] / ms:.3f}" for p in ("cudnn",) if p in times)
                print(f"ATTN D{d} {b}x{h}x{s} {'causal' if causal else 'full'} {n:9s} "
                      f"ms={ms:.3f} TF={flops / ms / 1e9:.1f}{r}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
