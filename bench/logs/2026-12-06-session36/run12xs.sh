#!/bin/bash
# Session 36: the essentials of run12.sh in about 250 s (the device budget after failed starts):
# the attention tests and the attention kernels' difftest of the build with attention_varlen's
# cp.async ring, then exp42 (tile-ping-pong against the serial consumers and cuDNN/flash).
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry36.tar.xz -C /tmp/c gpu-bin/attention_test gpu-bin/attention_varlen_test gpu-bin/attention_decode_test gpu-bin/tlc-difftest difftest
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for t in attention_test attention_varlen_test attention_decode_test; do ( timeout 100 $B/$t > $L/$t.txt 2>&1; echo "$t rc=$?" >> $L/summary.txt ) & done
mkdir -p /tmp/d/ref /tmp/d/fast /tmp/d/sm_80 /tmp/d/mma_sync /tmp/d/register
for k in attention attention_gqa attention_varlen attention_decode linear_attention; do
  for b in ref fast sm_80 mma_sync register; do cp /tmp/c/difftest/$b/$k.* /tmp/d/$b/ 2>/dev/null; done
done
( DIFFTEST_JOBS=4 timeout 100 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/d > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "^==|DISAGREE|ALL AGREE" $L/difftest.txt | head -30
grep -hE "FAIL|PASS" $L/*_test.txt | tail -8
E=bench/logs/2026-12-06-session36
timeout 45 python3 $E/exp42.py devcarry/e42/libexp42.so --small > $OUT/small.txt 2>&1; echo "exp42 small rc=$?"
grep -E "FAIL|EXP42|Error|error" $OUT/small.txt | head -20
timeout 110 python3 $E/exp42.py devcarry/e42/libexp42.so > $OUT/bench.txt 2>&1; echo "exp42 bench rc=$?"
grep -E "ATTN|FAIL|refused" $OUT/bench.txt
echo "total $(( $(date +%s) - T0 ))s"
