#!/bin/bash
# Session 34, call 2: exp39 (attention on a tma_regs ring: correctness on small and ragged
# shapes, a misaligned base, then speed against cuDNN/flash in one process), memcheck of the
# small cases; exp38 (gemm pairs A/B) if time allows.
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
E=bench/logs/2026-12-06-session34
timeout 150 python3 $E/exp39.py devcarry/libexp39.so --small > $OUT/exp39-small.txt 2>&1; echo "small rc=$?"
grep -E "FAIL|EXP39|Error|error" $OUT/exp39-small.txt | head -20; tail -2 $OUT/exp39-small.txt
if grep -q "all outputs checked" $OUT/exp39-small.txt; then
  timeout 200 python3 $E/exp39.py devcarry/libexp39.so > $OUT/exp39.txt 2>&1; echo "bench rc=$?"
  grep -E "ATTN|FAIL|refused" $OUT/exp39.txt
  timeout 200 compute-sanitizer --tool memcheck python3 $E/exp39.py devcarry/libexp39.so --small > $OUT/memcheck.txt 2>&1; echo "memcheck rc=$?"
  grep -E "ERROR SUMMARY|EXP39" $OUT/memcheck.txt | head -3
fi
echo "t $(( $(date +%s) - T0 ))s"
if [ -x devcarry/exp38 ]; then timeout 300 devcarry/exp38 > $OUT/exp38.txt 2>&1; echo "exp38 rc=$?"; grep -E "FAIL|NOTE|BENCH|GEOMEAN" $OUT/exp38.txt; fi
echo "total $(( $(date +%s) - T0 ))s"
