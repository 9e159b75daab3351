#!/bin/bash
# Session 31, call 2: the loading producer (loads_wgmma rings) written out by tile-warp-specialize
# too -- every GPU test, the difftest of every kernel (default cases, then 4 misaligned cases each:
# the __loads entries), exp33 (batched_gemm before/after on shapes TMA cannot read), racecheck
# of gemm_family_test.
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry2.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv,noheader
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 240 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 330 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
DIFFTEST_JOBS=6 timeout 300 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest --cases 4 --misalign > $L/difftest_misalign.txt 2>&1; echo "difftest misalign rc=$?" >> $L/summary.txt
timeout 120 devcarry/exp/exp33 > $L/exp33.txt 2>&1; echo "exp33 rc=$?" >> $L/summary.txt
echo "total $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "run-kernels|DISAGREE|FAIL" $L/difftest.txt | tail -5
grep -E "run-kernels|DISAGREE|FAIL" $L/difftest_misalign.txt | tail -5
grep -hE "FAIL" $L/*_test.txt | head -10
grep -E "CHECK|BENCH" $L/exp33.txt
