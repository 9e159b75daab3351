#!/bin/bash
# Session 36, call 2: exp42 (tile-ping-pong's turns against the serial consumers and cuDNN/flash,
# one process), its correctness cases first; the SASS of the D = 128 builds (spills, barriers).
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
E=bench/logs/2026-12-06-session36
timeout 150 python3 $E/exp42.py devcarry/e42/libexp42.so --small > $OUT/small.txt 2>&1; echo "small rc=$?"
grep -E "FAIL|EXP42|Error|error" $OUT/small.txt | head -20
timeout 300 python3 $E/exp42.py devcarry/e42/libexp42.so > $OUT/bench.txt 2>&1; echo "bench rc=$?"
grep -E "ATTN|FAIL|refused" $OUT/bench.txt
for n in h_ser h_pp; do
  cuobjdump -sass devcarry/e42/$n.fatbin > $OUT/$n.sass 2>&1
  echo "$n: STL $(grep -c STL $OUT/$n.sass) LDL $(grep -c LDL $OUT/$n.sass) HGMMA $(grep -c HGMMA $OUT/$n.sass) BAR.SYNC $(grep -c 'BAR.SYNC' $OUT/$n.sass) BAR.ARV $(grep -c 'BAR.ARV' $OUT/$n.sass)"
done
xz -T4 $OUT/h_ser.sass $OUT/h_pp.sass
echo "total $(( $(date +%s) - T0 ))s"
