#!/bin/bash
# Session 42, run 27b: run27.sh trimmed to the device time left (no racecheck; the two
# differential tests side by side with the GPU test programs). Same carry as run27.sh.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && for f in e50 carry50 dt50; do tar xJf devcarry/$f.tar.xz -C /tmp/c; done
timeout 150 /tmp/c/e50/exp50 > $OUT/exp50.txt 2>&1; echo "exp50 rc=$?"
cat $OUT/exp50.txt
echo "exp50 done $(( $(date +%s) - T0 ))s"
B=/tmp/c/gpu-bin
D=/tmp/c/dt
L=$OUT/logs; mkdir -p $L
( DIFFTEST_JOBS=5 timeout 220 test/gpu/difftest/run-kernels.sh $B/tlc-difftest $D > $OUT/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
( DIFFTEST_JOBS=5 timeout 220 test/gpu/difftest/run-kernels.sh $B/tlc-difftest $D --misalign > $OUT/difftest-misalign.txt 2>&1; echo "difftest-misalign rc=$?" >> $L/summary.txt ) &
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 200 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' )
wait
sort $L/summary.txt | tr '\n' ' '; echo
for f in difftest difftest-misalign; do echo "$f: $(grep -c 'PASS' $OUT/$f.txt) PASS lines"; grep -E "DISAGREE|FAIL|mismatch|ALL AGREE" $OUT/$f.txt | grep -v "mismatches 0/" | head -10; grep -h "with TMA" $OUT/$f.txt | awk '{t+=$2; v+=$8} END {print "launches storing rows with TMA", t, "as vectors", v}'; done
grep -hE "FAIL|SOME" $L/*_test.txt | head -20
cd $OUT && tar cJf logs.tar.xz logs difftest.txt difftest-misalign.txt && rm -rf logs difftest.txt difftest-misalign.txt
echo "total $(( $(date +%s) - T0 ))s"
