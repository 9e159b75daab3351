#!/usr/bin/env python3
"""Session 44, exp53: attention.tile on sm_90a with the consumers' ping-pong (`pp`) or overlap
(`ov`), each with the output staged (the default since this session) and with each thread's own
stores (`*d`: --codegen=...,direct-stores), against the serial consumers (`stg`) and torch SDPA
(cuDNN, flash), on the same tensors in one process: session 36's exp42.py (checks against
float32 SDPA on ragged shapes, then CUDA events, interleaved, medians) on build-exp53.sh's builds.
Usage: exp53.py LIB [--small]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../2026-12-06-session36"))
import exp42  # noqa: E402

exp42.GROUPS = {
    (128, torch.bfloat16, False): ["h_stg", "h_pp", "h_ppd", "h_ov", "h_ovd"],
    (128, torch.bfloat16, True): ["h_stgc", "h_ppc", "h_ppdc"],
    (64, torch.float16, False): ["d_stg", "d_pp", "d_ppd"],
}

if __name__ == "__main__":
    sys.exit(exp42.main())
