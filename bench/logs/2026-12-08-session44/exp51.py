#!/usr/bin/env python3
"""Session 44, exp51: attention.tile on sm_90a with its output staged through a per-warp shared
scratch (16-byte vector stores; `stg`, the new default for kernels on a tma_regs ring) against
the same kernel storing from each thread (`dir`, --codegen=direct-stores: the stores before),
the staged kernel with session 35's overlap (`ov`) or session 36's ping-pong (`pp`), whose
stores spilled before, and torch SDPA (cuDNN, flash), on the same tensors in one process:
session 36's exp42.py (the checks against float32 SDPA on ragged shapes, then CUDA events,
interleaved, medians) on build-exp51.sh's builds.
Usage: exp51.py LIB [--small]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../2026-12-06-session36"))
import exp42  # noqa: E402

exp42.GROUPS = {
    (128, torch.bfloat16, False): ["h_dir", "h_stg", "h_ov", "h_pp"],
    (128, torch.bfloat16, True): ["h_dirc", "h_stgc", "h_ovc", "h_ppc"],
    (64, torch.float16, False): ["d_dir", "d_stg", "d_pp"],
    (64, torch.float16, True): ["d_dirc", "d_stgc"],
}

if __name__ == "__main__":
    sys.exit(exp42.main())
