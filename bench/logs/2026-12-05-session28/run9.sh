#!/bin/bash
set -u
mkdir -p /tmp/c && tar xJf devcarry/carry9.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
timeout 250 $B/gemm_test > $L/gemm_test.txt 2>&1; echo "gemm_test rc=$?"
devcarry/exp/exp_gemm9 2>&1 | sed 's/base128/inplace128x256/g; s/fl128/realign128x256/g; s/base256/inplace128x128/g; s/fl256/realign128x128/g' > $L/exp_gemm9.txt; echo "exp_gemm9 rc=$?"
timeout 200 $B/bench_gemm_peers 4096 3000 4096 0 3001 3000 1000 0 512 3000 8192 0 4096 4096 4096 0 > $L/bench_gemm_peers.txt 2>&1; echo "bench_gemm_peers rc=$?"
grep -E "FAIL|realign|rows off" $L/gemm_test.txt | head; tail -1 $L/gemm_test.txt
grep -E "FAIL|BENCH" $L/exp_gemm9.txt
grep -E "^BENCH" $L/bench_gemm_peers.txt | grep "build=default" | sed "s/rel_diff.*//" | cut -c1-200
