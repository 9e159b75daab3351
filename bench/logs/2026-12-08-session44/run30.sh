#!/bin/bash
# Session 44, run 30. Carry: devcarry/e54 (build-exp54.sh). exp54: attention at D = 128 with key
# blocks of 128, 144, 160 and 176, full and causal, checks then timings against cuDNN/flash.
set -u
T0=$(date +%s)
E=bench/logs/2026-12-08-session44
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
timeout 120 python3 $E/exp54.py devcarry/e54/libexp54.so --small > $OUT/exp54-small.txt 2>&1
echo "exp54 small rc=$?"; grep -E "FAIL|EXP42|Error|error" $OUT/exp54-small.txt | head -20
timeout 200 python3 $E/exp54.py devcarry/e54/libexp54.so > $OUT/exp54.txt 2>&1
echo "exp54 rc=$?"; grep -E "ATTN|FAIL|refused" $OUT/exp54.txt
echo "total $(( $(date +%s) - T0 ))s"
