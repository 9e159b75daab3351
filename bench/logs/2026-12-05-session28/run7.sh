#!/bin/bash
set -u
mkdir -p /tmp/c && tar xJf devcarry/carry7.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
( timeout 250 $B/gemm_test > $L/gemm_test.txt 2>&1; echo "gemm_test rc=$?" >> $L/summary.txt ) &
( DIFFTEST_JOBS=4 timeout 250 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
timeout 150 $B/bench_gemm_peers 64 8192 8192 0 16 8192 8192 0 1 8192 8192 0 32 4096 4096 0 64 4096 1024 0 128 8192 8192 0 4096 4096 4096 0 > $L/bench_gemm_peers.txt 2>&1; echo "bench_gemm_peers rc=$?" >> $L/summary.txt
devcarry/exp/exp_gemm 2>&1 | sed 's/base128/q128x128/g; s/fl128/q128x192/g; s/base256/q128x256/g; s/fl256/q64x64/g' > $L/exp_gemm.txt; echo "exp_gemm rc=$?" >> $L/summary.txt
cat $L/summary.txt
grep -E "FAIL|select_for|skinny|64x64" $L/gemm_test.txt | head -20; tail -2 $L/gemm_test.txt
grep -E "^==|run-kernels|FAIL|disagree" $L/difftest.txt | head -12
grep -E "^BENCH" $L/bench_gemm_peers.txt | grep "build=default" | sed "s/rel_diff.*//" | cut -c1-200
grep -E "FAIL|BENCH" $L/exp_gemm.txt
