#!/bin/bash
# Session 34, call 1: exp38 -- gemm.tile's default build against its --cluster-pairs build
# (remote arrivals at CTA scope), cuBLAS, one process.
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 400 devcarry/exp38 > $OUT/exp38.txt 2>&1; echo "exp38 rc=$?"
grep -E "FAIL|NOTE|BENCH|GEOMEAN" $OUT/exp38.txt
echo "total $(( $(date +%s) - T0 ))s"
