#!/bin/bash
# Session 44, run 29. Carry: devcarry/e52 (build-exp52.sh), devcarry/e51 (build-exp51.sh).
# exp52: fp8_gemm_blockwise with its output staged (new default) against each thread's stores;
# exp51 again (a second sample of run 28's attention timings).
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 150 devcarry/e52/exp52 > $OUT/exp52.txt 2>&1; echo "exp52 rc=$?"
grep -E "FAIL|FP8BW" $OUT/exp52.txt
echo "exp52 done $(( $(date +%s) - T0 ))s"
timeout 150 python3 bench/logs/2026-12-08-session44/exp51.py devcarry/e51/libexp51.so > $OUT/exp51b.txt 2>&1
echo "exp51 rc=$?"; grep -E "ATTN|FAIL|refused|EXP42" $OUT/exp51b.txt
echo "total $(( $(date +%s) - T0 ))s"
