#!/bin/bash
# Session 41, run 26: exp49 (staged stores with realigned pieces against exp48's builds).
# Carry: devcarry/e49.tar.xz.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && tar xJf devcarry/e49.tar.xz -C /tmp/c
timeout 300 /tmp/c/e48/exp49 > $OUT/exp49.txt 2>&1; echo "exp49 rc=$?"
cat $OUT/exp49.txt
