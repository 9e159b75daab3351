#!/usr/bin/env python3
"""Session 44, exp54: attention.tile on sm_90a at D = 128 with key blocks of 128 (shipped), 144,
160 and 176 keys (build-exp54.sh; none spills now that the output is staged), full and causal,
against torch SDPA (cuDNN, flash), on the same tensors in one process: session 36's exp42.py
(checks against float32 SDPA on ragged shapes, then CUDA events, interleaved, medians).
Usage: exp54.py LIB [--small]
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../2026-12-06-session36"))
import exp42  # noqa: E402

exp42.GROUPS = {
    (128, torch.bfloat16, False): ["h_128", "h_144", "h_160", "h_176"],
    (128, torch.bfloat16, True): ["h_128c", "h_144c", "h_160c", "h_176c"],
}

if __name__ == "__main__":
    sys.exit(exp42.main())
