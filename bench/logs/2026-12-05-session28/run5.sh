#!/bin/bash
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv,noheader
# Phase A: every GPU test program (3 at a time) beside the differential test of every kernel.
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 240 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 330 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
# Phase B: same-process timings.
devcarry/exp/exp_gemm > $L/exp_gemm.txt 2>&1; echo "exp_gemm rc=$?" >> $L/summary.txt
timeout 120 $B/bench_gemm_peers > $L/bench_gemm_peers.txt 2>&1; echo "bench_gemm_peers rc=$? $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cd devcarry/exp && ncu --clock-control none --launch-skip 0 --launch-count 8 --section SpeedOfLight ./exp_gemm 3001 3000 1000 2>&1 | grep -E "^  [a-zA-Z_].*\(|Duration" > $L/ncu_3001.txt; cd - > /dev/null
cat $L/summary.txt
grep -hE "FAIL|Error|error" $L/*_test.txt | head -30
grep -E "run-kernels|DISAGREE|FAIL" $L/difftest.txt | head -20
grep -E "^BENCH|FAIL" $L/exp_gemm.txt | sed 's/fl128/quad128/g; s/fl256/quad256/g'
grep -E "^BENCH" $L/bench_gemm_peers.txt | sed "s/rel_diff.*//" | cut -c1-220
cat $L/ncu_3001.txt
