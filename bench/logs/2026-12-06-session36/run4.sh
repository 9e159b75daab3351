#!/bin/bash
# Session 36, what about 150 s of device time allows: exp42 (tile-ping-pong against the serial
# consumers and cuDNN/flash, one process), its correctness cases first.
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
E=bench/logs/2026-12-06-session36
timeout 35 python3 $E/exp42.py devcarry/e42/libexp42.so --small > $OUT/small.txt 2>&1; echo "exp42 small rc=$?"
grep -E "FAIL|EXP42|Error|error" $OUT/small.txt | head -20
timeout 90 python3 $E/exp42.py devcarry/e42/libexp42.so > $OUT/bench.txt 2>&1; echo "exp42 bench rc=$?"
grep -E "ATTN|FAIL|refused" $OUT/bench.txt
echo "total $(( $(date +%s) - T0 ))s"
