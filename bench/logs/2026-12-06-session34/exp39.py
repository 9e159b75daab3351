#!/usr/bin/env python3
"""Session 34, exp39: attention.tile with its key loop on a `tma_regs` ring (tlc --ring-producers:
a TMA producer warpgroup, mbarriers, persistent blocks) against the shipped build and torch SDPA
(cuDNN, flash) on the same tensors in one process (CUDA events, interleaved, medians).

The builds (devcarry/att, one namespace each, called through their C interface):
  e_base / e_base_c   shipped attention.tile (BM 64, 4 warps; BN 96 full, 64 causal), no producer
  e_w8                BM 128, 8 warps, BN 64, cp.async register ring (no producer)
  e_rp64 / e_rp128    BM 128, 8 warps, BN 64 / 128, --ring-producers
  e_rp64s3            the same, BN 64, 3 stages
  e_rp1w              BM 64, 4 warps, BN 64, --ring-producers (one consumer warpgroup)
  e_rpc64 / e_rpc128  causal, BM 128, 8 warps, BN 64 / 128, --ring-producers
Usage: exp39.py LIB [--small]
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

FULL = ["e_base", "e_w8", "e_rp64", "e_rp128", "e_rp64s3", "e_rp1w"]
CAUSAL = ["e_base_c", "e_rpc64", "e_rpc128"]


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
    for n in FULL + CAUSAL:
        f = getattr(lib, f"tlc_{n}_attention_fwd_launch")
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

    def tensors(b, h, s, d, offset, seed):
        gen = torch.Generator(device="cuda").manual_seed(seed)
        out = []
        for _ in range(3):
            flat = torch.randn(b * h * s * d + offset, device="cuda", dtype=torch.bfloat16,
                               generator=gen)
            out.append(flat[offset:].view(b, h, s, d))
        return out

    ok = True
    cases = [(1, 3, 77, 0), (2, 4, 1000, 0), (1, 2, 1, 0), (1, 2, 513, 1), (2, 2, 4096, 0),
             (3, 5, 640, 0)]
    for (b, h, s, offset) in cases:
        q, k, v = tensors(b, h, s, 128, offset, s)
        scale = 1.0 / math.sqrt(128)
        for causal in (False, True):
            with sdpa_kernel([SDPBackend.MATH]):
                ref = F.scaled_dot_product_attention(q.float(), k.float(), v.float(),
                                                     is_causal=causal)
            for n in (CAUSAL if causal else FULL):
                o = torch.full_like(q, float("nan"))
                print(f"RUN {n} {b}x{h}x{s} off{offset}", flush=True)
                call(n, q, k, v, o, scale)
                torch.cuda.synchronize()
                err = (o.float() - ref).abs().max().item()
                good = math.isfinite(err) and err < 2e-2
                ok &= good
                print(f"CHECK {n} {b}x{h}x{s} off{offset} {'causal' if causal else 'full'} "
                      f"err={err:.2e} {'ok' if good else 'FAIL'}", flush=True)
    print("EXP39", "all outputs checked" if ok else "WRONG OUTPUTS", flush=True)
    if small:
        return 0 if ok else 1
    for shape in [(4, 32, 4096), (8, 16, 8192), (16, 16, 1024)]:
        b, h, s = shape
        q, k, v = tensors(b, h, s, 128, 0, 7)
        scale = 1.0 / math.sqrt(128)
        for causal in (False, True):
            o = torch.empty_like(q)
            t = {}
            for n in (CAUSAL if causal else FULL):
                t[n] = (lambda n=n: call(n, q, k, v, o, scale))
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
            flops = 4.0 * b * h * s * s * 128 * (0.5 if causal else 1.0)
            for n, ms in times.items():
                r = "".join(f" x_{p}={times[p] / ms:.3f}" for p in ("cudnn", "flash") if p in times)
                print(f"ATTN {b}x{h}x{s} {'causal' if causal else 'full'} {n:10s} ms={ms:.3f} "
                      f"TFLOPs={flops / ms / 1e9:.1f}{r}", flush=True)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
