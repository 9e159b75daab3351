#!/bin/bash
# Session 44, run 29. Carry: devcarry/e52 (build-exp52.sh), devcarry/e53 (build-exp53.sh).
# exp52: fp8_gemm_blockwise with its output staged (the new default) against each thread's
# stores; exp53: ping-pong and the overlap with the staged output and with each thread's stores.
set -u
T0=$(date +%s)
E=bench/logs/2026-12-08-session44
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 150 devcarry/e52/exp52 > $OUT/exp52.txt 2>&1; echo "exp52 rc=$?"
grep -E "FAIL|FP8BW" $OUT/exp52.txt
echo "exp52 done $(( $(date +%s) - T0 ))s"
timeout 120 python3 $E/exp53.py devcarry/e53/libexp53.so --small > $OUT/exp53-small.txt 2>&1
echo "exp53 small rc=$?"; grep -E "FAIL|EXP42|Error|error" $OUT/exp53-small.txt | head -20
timeout 150 python3 $E/exp53.py devcarry/e53/libexp53.so > $OUT/exp53.txt 2>&1
echo "exp53 rc=$?"; grep -E "ATTN|FAIL|refused" $OUT/exp53.txt
echo "total $(( $(date +%s) - T0 ))s"
