#!/bin/bash
# Session 36, the last device budget (about 200 s): attention_test and attention_varlen_test of
# the build with attention_varlen's cp.async ring, then exp42 (ping-pong against serial, cuDNN).
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry36.tar.xz -C /tmp/c gpu-bin/attention_test gpu-bin/attention_varlen_test
B=/tmp/c/gpu-bin
nvidia-smi --query-gpu=name --format=csv,noheader
for t in attention_test attention_varlen_test; do ( timeout 60 $B/$t > $OUT/$t.txt 2>&1; echo "$t rc=$?" >> $OUT/summary.txt ) & done
wait
cat $OUT/summary.txt | tr '\n' ' '; echo; grep -hE "FAIL" $OUT/*_test.txt | head -5
E=bench/logs/2026-12-06-session36
timeout 40 python3 $E/exp42.py devcarry/e42/libexp42.so --small > $OUT/small.txt 2>&1; echo "exp42 small rc=$?"
grep -E "FAIL|EXP42|Error|error" $OUT/small.txt | head -20
timeout 100 python3 $E/exp42.py devcarry/e42/libexp42.so > $OUT/bench.txt 2>&1; echo "exp42 bench rc=$?"
grep -E "ATTN|FAIL|refused" $OUT/bench.txt
echo "total $(( $(date +%s) - T0 ))s"
