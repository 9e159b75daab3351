#!/bin/bash
# Session 27, call 1: kernels/w4a16_decode.tile (split-K decode GEMM, dequantized in registers):
# correctness (gemm_family_test, difftest of all builds), then timings against cuBLAS f16.
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $L/smi.txt
( timeout 240 $B/gemm_family_test > $L/gemm_family_test.txt 2>&1; echo "gemm_family_test rc=$? $(( $(date +%s) - T0 ))s" >> $L/summary.txt ) &
( DIFFTEST_JOBS=5 timeout 200 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/dt-w4 > $L/difftest.txt 2>&1; echo "difftest rc=$? $(( $(date +%s) - T0 ))s" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
timeout 200 $B/bench_gemm_family w4a16 > $L/bench_w4.txt 2>&1; echo "bench rc=$? $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cat $L/summary.txt
grep -h "w4a16" $L/gemm_family_test.txt | head -30; grep -c PASS $L/gemm_family_test.txt; grep FAIL $L/gemm_family_test.txt | head
grep -E "^==|agree|disagree|FAIL|rc=" $L/difftest.txt | head -30
cat $L/bench_w4.txt | cut -c1-160
