#!/usr/bin/env python3
"""tlc's memory-bound kernels against PyTorch on the GPU machine (bench only: nothing in the
build or the tests runs Python).

Loads build/gpu-bin/libtlc_bench_shim.so (bench/bench_shim.cpp: the generated launchers of
softmax, rmsnorm, layernorm and fp8_cast behind a C interface) with ctypes, and times each tlc
kernel and its torch equivalent on the same tensors, on torch's current stream, with CUDA events:
warm-up first, then the two (and a device-to-device copy of the input, the roofline) interleaved
iteration by iteration, median of the iterations. Once per shape and dtype it checks tlc's output
against torch's and both against a float64 reference:
  rmsnorm              F.rms_norm(x, (N,), w, eps)                      bf16, f32
  rmsnorm_residual     h = x + r; F.rms_norm(h, (N,), w, eps)           bf16, f32 (H checked too)
  layernorm            F.layer_norm(x, (N,), w, b, eps)                 bf16, f32
  layernorm_residual   h = x + r; F.layer_norm(h, (N,), w, b, eps)      bf16, f32 (H checked too)
  softmax              torch.softmax(x, -1)                             bf16 and f32
  fp8_cast             (x.float() * s).clamp(-448, 448).to(float8_e4m3fn)   bf16 -> e4m3
GB/s counts the bytes each operation must move at least (inputs read once, outputs written once,
W and B included); torch's residual form is two kernels (add, then the norm), tlc's one.

With --variants, the bf16 softmax, rmsnorm and layernorm are also timed in other builds
(bench_shim.cpp's *_variant entries: registers not fitted to 4 blocks, more row tiles per block, 512 threads per block, the kernels
before their cp.async rings), interleaved with the rest and checked the same way.

Usage: python3 bench/norms_peers.py [--shim PATH] [--shapes 32768x4096,8192x8192]
                                    [--dtypes bf16,f32] [--ops rmsnorm,...] [--warmup 10]
                                    [--iters 50] [--variants]
"""

import argparse
import ctypes
import math
import os
import statistics
import sys

import torch
import torch.nn.functional as F

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_SHIM = os.path.join(ROOT, "build", "gpu-bin", "libtlc_bench_shim.so")
OPS = ["rmsnorm", "rmsnorm_residual", "layernorm", "layernorm_residual", "softmax", "fp8_cast"]
RMS_EPS = 1e-6
LN_EPS = 1e-5
FP8_SCALE = 2.0


def load_shim(path):
    lib = ctypes.CDLL(path)
    i64, u64, f32, ptr, i32 = (ctypes.c_int64, ctypes.c_uint64, ctypes.c_float,
                               ctypes.c_void_p, ctypes.c_int)
    signatures = {
        "tlc_bench_init": [i32],
        "tlc_bench_softmax_f32": [ptr, u64, u64, i64, i64],
        "tlc_bench_softmax_bf16": [ptr, u64, u64, i64, i64],
        "tlc_bench_rmsnorm": [i32, ptr, u64, u64, u64, f32, i64, i64],
        "tlc_bench_rmsnorm_residual": [i32, ptr, u64, u64, u64, u64, u64, f32, i64, i64],
        "tlc_bench_layernorm": [i32, ptr, u64, u64, u64, u64, f32, i64, i64],
        "tlc_bench_layernorm_residual": [i32, ptr, u64, u64, u64, u64, u64, u64, f32, i64,
                                         i64],
        "tlc_bench_fp8_cast": [ptr, u64, u64, f32, i64, i64],
        "tlc_bench_softmax_variant": [i32, ptr, u64, u64, i64, i64],
        "tlc_bench_softmax_f32_variant": [i32, ptr, u64, u64, i64, i64],
        "tlc_bench_rmsnorm_variant": [i32, ptr, u64, u64, u64, f32, i64, i64],
        "tlc_bench_layernorm_variant": [i32, ptr, u64, u64, u64, u64, f32, i64, i64],
    }
    for name, args in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes = args
        fn.restype = ctypes.c_int
    lib.tlc_bench_error_name.argtypes = [ctypes.c_int]
    lib.tlc_bench_error_name.restype = ctypes.c_char_p
    return lib


class Shim:
    """Calls into the shim, raising on any CUresult other than CUDA_SUCCESS."""

    def __init__(self, lib):
        self.lib = lib

    def __call__(self, name, *args):
        rc = getattr(self.lib, name)(*args)
        if rc != 0:
            raise RuntimeError(f"{name}: {self.lib.tlc_bench_error_name(rc).decode()} ({rc})")


def time_interleaved(fns, warmup, iters):
    """Median ms of each callable in `fns` (name -> fn), timed with CUDA events on the current
    stream, alternating the order every iteration."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    torch.cuda.synchronize()
    names = list(fns)
    events = {n: [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(iters)] for n in names}
    for i in range(iters):
        order = names if i % 2 == 0 else names[::-1]
        for n in order:
            start, stop = events[n][i]
            start.record()
            fns[n]()
            stop.record()
    torch.cuda.synchronize()
    return {n: statistics.median(s.elapsed_time(e) for s, e in events[n]) for n in names}


def check_attention_outputs(fns, out, ref, label):
    """Runs each callable of `fns` once and compares its output with the float32 `ref`: tlc's
    ("tlc..." names) write `out`, poisoned with NaN first; the others return theirs. Prints a
    CHECK line per callable; True when every max abs error is finite and below 2e-2."""
    ok = True
    for name, fn in fns.items():
        if name.startswith("tlc"):
            out.fill_(float("nan"))
            fn()
            got = out
        else:
            got = fn()
        err = (got.float() - ref).abs().max().item()
        good = math.isfinite(err) and err < 2e-2
        ok &= good
        print(f"CHECK {label} {name}: max abs err {err:.2e} {'ok' if good else 'WRONG'}",
              flush=True)
    return ok


def f32_err(got, ref):
    """max |got - ref| / max(|ref|, 1e-2) (outputs near zero are held to 1e-2 absolute)."""
    return ((got.double() - ref).abs() / ref.abs().clamp_min(1e-2)).max().item()


def bf16_err(got, ref):
    """max |got - ref| in bf16 ulps of ref (2^-7 of its binade; ref float64), and the number of
    elements beyond 1 ulp + 2^-12 (the slack for (x - mean) * rstd * w + b cancelling)."""
    d = (got.double() - ref).abs()
    ulp = torch.exp2(torch.floor(torch.log2(ref.abs().clamp_min(2.0 ** -100))) - 7)
    return (d / ulp).max().item(), int((d > ulp + 2.0 ** -12).sum().item())


# The bf16 variants per op (bench_shim.cpp): variant number -> name.
VARIANTS = {
    "softmax": {1: "blocks1", 2: "r16", 3: "before_rings", 4: "threads512", 5: "rowregs",
                6: "rowregs512", 7: "parts_s3", 8: "parts_s4", 9: "parts_h16s3",
                10: "parts_h16s4", 11: "parts_pow2", 12: "parts_pow2s4"},
    "rmsnorm": {1: "blocks1", 2: "before_rings", 3: "threads512", 4: "sweeps"},
    "layernorm": {1: "blocks1", 2: "before_rings", 3: "threads512", 4: "dev_regs",
                  5: "wb_regs", 6: "wb_regs512", 7: "sweeps"},
}
# The f32 variants (tlc_bench_softmax_f32_variant).
VARIANTS_F32 = {"softmax": {1: "rowregs", 2: "rowregs512"}}


def variant_fits(vname, n):
    """The rowregs variants hold rows of 16385..32768 columns only, the parts variants rows of
    4097..32768."""
    if vname.startswith("parts"):
        return 4096 < n <= 32768
    return not vname.startswith("rowregs") or 16384 < n <= 32768


def run_shape(shim, m, n, dtype, ops, args, stream):
    f32 = 1 if dtype == torch.float32 else 0
    dname = "bf16" if dtype == torch.bfloat16 else "f32"
    elem = torch.finfo(dtype).bits // 8
    g = torch.Generator(device="cuda")
    g.manual_seed(1234 + m + n)
    x = torch.randn(m, n, device="cuda", dtype=dtype, generator=g)
    r = torch.randn(m, n, device="cuda", dtype=dtype, generator=g) * 0.5
    w = (1.0 + 0.25 * torch.randn(n, device="cuda", generator=g)).to(dtype)
    b = (0.25 * torch.randn(n, device="cuda", generator=g)).to(dtype)
    y = torch.empty_like(x)
    h = torch.empty_like(x)
    copy_dst = torch.empty_like(x)
    s = ctypes.c_void_p(stream.cuda_stream)
    xp, rp, wp, bp, yp, hp = (t.data_ptr() for t in (x, r, w, b, y, h))
    mn = m * n

    cases = {}
    if "rmsnorm" in ops:
        cases["rmsnorm"] = (
            lambda: shim("tlc_bench_rmsnorm", f32, s, xp, wp, yp, RMS_EPS, m, n),
            lambda: F.rms_norm(x, (n,), w, RMS_EPS),
            2 * mn * elem + n * elem, False)
    if "rmsnorm_residual" in ops:
        cases["rmsnorm_residual"] = (
            lambda: shim("tlc_bench_rmsnorm_residual", f32, s, xp, rp, wp, yp, hp, RMS_EPS, m, n),
            lambda: (lambda hh: (F.rms_norm(hh, (n,), w, RMS_EPS), hh))(x + r),
            4 * mn * elem + n * elem, True)
    if "layernorm" in ops:
        cases["layernorm"] = (
            lambda: shim("tlc_bench_layernorm", f32, s, xp, wp, bp, yp, LN_EPS, m, n),
            lambda: F.layer_norm(x, (n,), w, b, LN_EPS),
            2 * mn * elem + 2 * n * elem, False)
    if "layernorm_residual" in ops:
        cases["layernorm_residual"] = (
            lambda: shim("tlc_bench_layernorm_residual", f32, s, xp, rp, wp, bp, yp, hp, LN_EPS,
                         m, n),
            lambda: (lambda hh: (F.layer_norm(hh, (n,), w, b, LN_EPS), hh))(x + r),
            4 * mn * elem + 2 * n * elem, True)
    variants = {}
    if args.variants and dtype == torch.bfloat16:
        calls = {
            "softmax": lambda v: shim("tlc_bench_softmax_variant", v, s, xp, yp, m, n),
            "rmsnorm": lambda v: shim("tlc_bench_rmsnorm_variant", v, s, xp, wp, yp, RMS_EPS,
                                      m, n),
            "layernorm": lambda v: shim("tlc_bench_layernorm_variant", v, s, xp, wp, bp, yp,
                                        LN_EPS, m, n),
        }
        for op, table in VARIANTS.items():
            if op in ops:
                variants[op] = {name: (lambda v=v, call=calls[op]: call(v))
                                for v, name in table.items() if variant_fits(name, n)}
    if args.variants and dtype == torch.float32 and "softmax" in ops:
        variants["softmax"] = {
            name: (lambda v=v: shim("tlc_bench_softmax_f32_variant", v, s, xp, yp, m, n))
            for v, name in VARIANTS_F32["softmax"].items() if variant_fits(name, n)}
    if "softmax" in ops:
        entry = "tlc_bench_softmax_f32" if dtype == torch.float32 else "tlc_bench_softmax_bf16"
        cases["softmax"] = (
            lambda: shim(entry, s, xp, yp, m, n),
            lambda: torch.softmax(x, dim=-1),
            2 * mn * elem, False)
    fp8 = getattr(torch, "float8_e4m3fn", None)
    y8 = torch.empty(m, n, device="cuda", dtype=torch.uint8)
    if "fp8_cast" in ops and dtype == torch.bfloat16 and fp8 is not None:
        cases["fp8_cast"] = (
            lambda: shim("tlc_bench_fp8_cast", s, xp, y8.data_ptr(), FP8_SCALE, m, n),
            lambda: (x.float() * FP8_SCALE).clamp(-448.0, 448.0).to(fp8),
            3 * mn, False)

    ok = True
    for name, (ours, theirs, nbytes, residual) in cases.items():
        # The variants write Y as tlc does: each is checked against the same reference, then
        # the shipped build runs last, for the check below.
        extra = variants.get(name, {})
        for vname, fn in extra.items():
            ok &= check_variant(name, vname, fn, theirs, y, x, w, b, n)
        # Correctness, once: tlc against torch and both against float64.
        y.fill_(float("nan"))
        h.fill_(float("nan"))
        y8.fill_(0xFF)
        ours()
        ref_out = theirs()
        torch.cuda.synchronize()
        check = ""
        if name == "fp8_cast":
            same = torch.equal(y8, ref_out.view(torch.uint8))
            check = f"bytes {'equal' if same else 'DIFFER'} to torch"
            ok &= same
        else:
            their_y, their_h = ref_out if residual else (ref_out, None)
            src = (their_h if residual else x).double()
            if name.startswith("rmsnorm"):
                ref64 = F.rms_norm(src, (n,), w.double(), RMS_EPS)
            elif name.startswith("layernorm"):
                ref64 = F.layer_norm(src, (n,), w.double(), b.double(), LN_EPS)
            else:
                ref64 = torch.softmax(src, dim=-1)
            finite = bool(torch.isfinite(y).all())
            if dtype == torch.bfloat16:
                (ours_err, over), theirs_err = bf16_err(y, ref64), bf16_err(their_y, ref64)[0]
                unit = "bf16 ulp"
                good = finite and over == 0
            else:
                ours_err, theirs_err = f32_err(y, ref64), f32_err(their_y, ref64)
                unit = "rel"
                good = finite and ours_err <= 1e-4
            check = f"max err vs f64: tlc {ours_err:.3g} torch {theirs_err:.3g} {unit}"
            if residual:
                same_h = torch.equal(h, their_h)
                check += f", H {'equal' if same_h else 'DIFFERS'} to torch's x + r"
                good &= same_h
            if not good:
                check += "  CHECK FAILED"
            ok &= good

        copy_fn = lambda: copy_dst.copy_(x)
        ms = time_interleaved({"tlc": ours, "torch": theirs, "copy": copy_fn, **extra},
                              args.warmup, args.iters)
        gbps = {k: (nbytes if k != "copy" else 2 * mn * elem) / (v * 1e-3) / 1e9
                for k, v in ms.items()}
        print(f"PEERS {name:19s} {dname:4s} {m}x{n}  tlc {ms['tlc']:.4f} ms {gbps['tlc']:7.1f} GB/s"
              f"  torch {ms['torch']:.4f} ms {gbps['torch']:7.1f} GB/s"
              f"  tlc/torch {ms['torch'] / ms['tlc']:.2f}x"
              f"  tlc/copy {gbps['tlc'] / gbps['copy']:.3f} torch/copy {gbps['torch'] / gbps['copy']:.3f}"
              f" (copy {gbps['copy']:.0f} GB/s)  {check}", flush=True)
        for vname in extra:
            print(f"VARIANT {name:17s} {dname:4s} {m}x{n}  {vname:13s} {ms[vname]:.4f} ms"
                  f" {gbps[vname]:7.1f} GB/s  /copy {gbps[vname] / gbps['copy']:.3f}"
                  f"  shipped/variant {ms[vname] / ms['tlc']:.3f}x", flush=True)
    return ok


def check_variant(op, vname, fn, theirs, y, x, w, b, n):
    """Runs variant `fn` of `op` once into the NaN-poisoned Y and checks it as the shipped build
    is checked (bf16: within 1 ulp + 2^-12 of the float64 reference)."""
    y.fill_(float("nan"))
    fn()
    torch.cuda.synchronize()
    src = x.double()
    if op == "rmsnorm":
        ref64 = F.rms_norm(src, (n,), w.double(), RMS_EPS)
    elif op == "layernorm":
        ref64 = F.layer_norm(src, (n,), w.double(), b.double(), LN_EPS)
    else:
        ref64 = torch.softmax(src, dim=-1)
    if y.dtype == torch.float32:
        err, over = f32_err(y, ref64), 0
        good = bool(torch.isfinite(y).all()) and err <= 1e-4
    else:
        err, over = bf16_err(y, ref64)
        good = bool(torch.isfinite(y).all()) and over == 0
    if not good:
        print(f"CHECK {op} {vname}: max err {err:.3g}, {over} over  CHECK FAILED", flush=True)
    return good


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--shim", default=DEFAULT_SHIM)
    p.add_argument("--shapes", default="32768x4096,8192x8192")
    p.add_argument("--dtypes", default="bf16,f32")
    p.add_argument("--ops", default=",".join(OPS))
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--iters", type=int, default=50)
    p.add_argument("--variants", action="store_true",
                   help="also time the bf16 variants of softmax, rmsnorm and layernorm")
    args = p.parse_args()
    if not torch.cuda.is_available():
        print("SKIP: no CUDA device")
        return 77
    torch.empty(1, device="cuda")  # the runtime makes the primary context current
    shim = Shim(load_shim(args.shim))
    shim("tlc_bench_init", torch.cuda.current_device())
    print(f"device: {torch.cuda.get_device_name()}  torch {torch.__version__}")
    stream = torch.cuda.current_stream()
    ops = [o for o in args.ops.split(",") if o]
    unknown = [o for o in ops if o not in OPS]
    if unknown:
        p.error(f"unknown ops {unknown}; known: {OPS}")
    dtypes = {"bf16": torch.bfloat16, "f32": torch.float32}
    ok = True
    for shape in args.shapes.split(","):
        m, n = (int(v) for v in shape.lower().split("x"))
        for d in args.dtypes.split(","):
            ok &= run_shape(shim, m, n, dtypes[d], ops, args, stream)
    print(f"norms_peers: checks {'PASS' if ok else 'FAIL'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
