#!/bin/bash
# Session 36: run1.sh and run2.sh in one call (device machines were hard to start): phase A
# (every GPU test, the difftest, racecheck of attention_test small; the build with
# attention_varlen's key loop a cp.async ring again), then exp42 (tile-ping-pong against the
# serial consumers and cuDNN/flash, one process), varlen against cuDNN/flash, SASS counts.
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry36.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
echo "untar $(( $(date +%s) - T0 ))s"
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 200 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( timeout 230 compute-sanitizer --tool racecheck $B/attention_test small > $L/racecheck.txt 2>&1; echo "racecheck rc=$?" >> $L/summary.txt ) &
( DIFFTEST_JOBS=4 timeout 230 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "DISAGREE|ALL AGREE" $L/difftest.txt | head -10
grep -hE "FAIL" $L/*_test.txt | head -10
grep -E "RACECHECK SUMMARY|ERROR SUMMARY|small:" $L/racecheck.txt
E=bench/logs/2026-12-06-session36
timeout 60 python3 $E/exp42.py devcarry/e42/libexp42.so --small > $OUT/small.txt 2>&1; echo "exp42 small rc=$?"
grep -E "FAIL|EXP42|Error|error" $OUT/small.txt | head -20
timeout 150 python3 $E/exp42.py devcarry/e42/libexp42.so > $OUT/bench.txt 2>&1; echo "exp42 bench rc=$?"
grep -E "ATTN|FAIL|refused" $OUT/bench.txt
timeout 60 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so --varlen > $L/peers_varlen.txt 2>&1; echo "peers varlen rc=$?"
grep -E "ATTN|WRONG|all outputs|CHECK|NOTE" $L/peers_varlen.txt | head -20
for n in h_ser h_pp; do
  cuobjdump -sass devcarry/e42/$n.fatbin > $OUT/$n.sass 2>&1
  echo "$n: STL $(grep -c STL $OUT/$n.sass) LDL $(grep -c LDL $OUT/$n.sass) HGMMA $(grep -c HGMMA $OUT/$n.sass) BAR.SYNC $(grep -c 'BAR.SYNC' $OUT/$n.sass) BAR.ARV $(grep -c 'BAR.ARV' $OUT/$n.sass)"
done
xz -T4 $OUT/h_ser.sass $OUT/h_pp.sass
echo "total $(( $(date +%s) - T0 ))s"
