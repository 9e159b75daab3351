#!/bin/bash
# Session 35, call 2: exp41 run 2 (serial vs overlap without spills; D 64 on three consumer
# warpgroups), and the SASS of the overlapped D 128 build (local-memory traffic in its loop).
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
E=bench/logs/2026-12-06-session35
EXP41_RUN=2 timeout 200 python3 $E/exp41.py devcarry/libexp41b.so --small > $OUT/small2.txt 2>&1; echo "small rc=$?"
grep -E "FAIL|EXP41|Error|error" $OUT/small2.txt | head -20
EXP41_RUN=2 timeout 300 python3 $E/exp41.py devcarry/libexp41b.so > $OUT/bench2.txt 2>&1; echo "bench rc=$?"
grep -E "ATTN|FAIL|refused" $OUT/bench2.txt
for n in h_ov3 h_ser2 d_128s2 d_128ser2; do
  cuobjdump -sass devcarry/e41b/$n.fatbin > $OUT/$n.sass 2>&1
  echo "$n: STL $(grep -c STL $OUT/$n.sass) LDL $(grep -c LDL $OUT/$n.sass) HGMMA $(grep -c HGMMA $OUT/$n.sass) WARPGROUP.DEPBAR $(grep -c 'WARPGROUP.DEPBAR' $OUT/$n.sass) WARPGROUP.ARRIVE $(grep -c 'WARPGROUP.ARRIVE' $OUT/$n.sass)"
done
xz -T4 $OUT/h_ov3.sass $OUT/h_ser2.sass; rm -f $OUT/d_*.sass
echo "total $(( $(date +%s) - T0 ))s"
