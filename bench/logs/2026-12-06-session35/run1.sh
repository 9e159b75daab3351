#!/bin/bash
# Session 35, call 1: exp41 (attention with the overlapped last gemm, D 64 on producer rings):
# correctness on ragged/small shapes, then speed against cuDNN/flash in one process; memcheck
# and racecheck of the small cases.
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
E=bench/logs/2026-12-06-session35
timeout 200 python3 $E/exp41.py devcarry/libexp41.so --small > $OUT/small.txt 2>&1; echo "small rc=$?"
grep -E "FAIL|EXP41|Error|error" $OUT/small.txt | head -20; tail -2 $OUT/small.txt
timeout 300 python3 $E/exp41.py devcarry/libexp41.so > $OUT/bench.txt 2>&1; echo "bench rc=$?"
grep -E "ATTN|FAIL|refused" $OUT/bench.txt
echo "t $(( $(date +%s) - T0 ))s"
timeout 150 compute-sanitizer --tool memcheck python3 $E/exp41.py devcarry/libexp41.so --small > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"
grep -E "ERROR SUMMARY|EXP41" $OUT/memcheck.txt | head -3
echo "total $(( $(date +%s) - T0 ))s"
EXP41_ONLY=h_ov3,h_ov3c,d_128s3 timeout 150 compute-sanitizer --tool racecheck python3 $E/exp41.py devcarry/libexp41.so --small > $OUT/racecheck.txt 2>&1; echo "racecheck rc=$?"
grep -E "RACECHECK SUMMARY|ERROR SUMMARY|EXP41|hazard" $OUT/racecheck.txt | head -5
echo "total $(( $(date +%s) - T0 ))s"
