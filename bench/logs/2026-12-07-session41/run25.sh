#!/bin/bash
# Session 41, run 25: every GPU test program, then the differential test of every bundled kernel
# with misaligned tensors (--misalign). Carry: devcarry/carry48.tar.xz, devcarry/dt48.tar.xz.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
mkdir -p /tmp/c && for f in carry48 dt48; do tar xJf devcarry/$f.tar.xz -C /tmp/c; done
B=/tmp/c/gpu-bin
L=$OUT/logs; mkdir -p $L
( DIFFTEST_JOBS=6 timeout 300 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/dt --misalign > $OUT/difftest-misalign.txt 2>&1; echo "difftest-misalign rc=$?" >> $L/summary.txt ) &
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 280 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' )
wait
sort $L/summary.txt | tr '\n' ' '; echo
grep -cE "ALL AGREE" $OUT/difftest-misalign.txt; grep -E "DISAGREE|FAIL|mismatch" $OUT/difftest-misalign.txt | head -20
grep -hE "FAIL|SOME" $L/*_test.txt | head -20
echo "total $(( $(date +%s) - T0 ))s"
