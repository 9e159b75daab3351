#!/bin/bash
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
( timeout 100 $B/gemm_family_test > $L/gemm_family_test.txt 2>&1; echo "gemm_family_test rc=$?" >> $L/summary.txt
  timeout 200 $B/dequant_gemm_test > $L/dequant_gemm_test.txt 2>&1; echo "dequant_gemm_test rc=$?" >> $L/summary.txt ) &
( DIFFTEST_JOBS=6 timeout 250 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/dt-w4 > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
timeout 100 $B/bench_gemm_family w4a16 > $L/bench_w4.txt 2>&1; echo "bench rc=$? $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cat $L/summary.txt
grep -hE "FAIL|PASS.*w4a16" $L/gemm_family_test.txt $L/dequant_gemm_test.txt | grep -v decode | head -30; tail -2 $L/dequant_gemm_test.txt
grep -E "^==|difftest:|FAIL" $L/difftest.txt | head -40

grep -E "decode|w4a16 M" $L/bench_w4.txt | sed "s/rel_diff.*//" | cut -c1-200
