# The padding route for GEMMs whose rows are not 16-byte aligned: copy the operand into a
# 16-byte-pitched buffer, then an aligned GEMM. cuBLAS (torch.mm) timings, CUDA events, one process.
import torch
def t(fn, it=50):
    for _ in range(5): fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(True), torch.cuda.Event(True)
    s.record()
    for _ in range(it): fn()
    e.record(); torch.cuda.synchronize()
    return s.elapsed_time(e) / it * 1e3  # us
torch.manual_seed(0)
for (M, N, K, what) in [(4096, 4096, 4095, "odd K"), (4096, 4095, 4096, "odd N"), (8192, 8191, 8192, "odd N 8k"), (2048, 2047, 2049, "2048x2047x2049")]:
    A = torch.randn(M, K, device="cuda", dtype=torch.bfloat16)
    B = torch.randn(K, N, device="cuda", dtype=torch.bfloat16)
    Kp, Np = (K + 7) // 8 * 8, (N + 7) // 8 * 8
    Ap = torch.zeros(M, Kp, device="cuda", dtype=torch.bfloat16)
    Bp = torch.zeros(Kp, Np, device="cuda", dtype=torch.bfloat16)
    Cp = torch.empty(M, Np, device="cuda", dtype=torch.bfloat16)
    flops = 2.0 * M * N * K
    direct = t(lambda: torch.mm(A, B))
    def padded():
        if Kp != K: Ap[:, :K].copy_(A)
        Bp[:K, :N].copy_(B) if (Kp != K or Np != N) else None
        torch.mm(Ap if Kp != K else A, Bp if (Kp != K or Np != N) else B, out=Cp)
    pad = t(padded)
    mm_only = t(lambda: torch.mm(Ap if Kp != K else A, Bp if (Kp != K or Np != N) else B, out=Cp))
    print(f"{what:16s} {M}x{N}x{K}: cuBLAS direct {flops/direct/1e6:.1f} TFLOP/s; pad+aligned {flops/pad/1e6:.1f} ({pad:.1f} us, of which GEMM {mm_only:.1f} us)")
