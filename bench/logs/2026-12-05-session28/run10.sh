#!/bin/bash
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry10.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
for d in fast sm_80 mma_sync register ref; do mkdir -p /tmp/c/dt/$d; for k in gemm batched_gemm grouped_gemm conv2d gemm_bias_gelu; do cp /tmp/c/difftest/$d/$k.* /tmp/c/dt/$d/ 2>/dev/null; done; done
( for t in gemm_test gemm_family_test c_interface_test configs_per_arch_test; do echo $t; done | xargs -P3 -I{} bash -c 'timeout 150 '$B'/{} > '$L'/{}.txt 2>&1; echo "{} rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 150 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/dt > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
devcarry/exp/exp_gemm10 2>&1 | sed 's/base128/inplace128x256/g; s/fl128/mn128x256/g; s/base256/inplace128x128/g; s/fl256/mn128x128/g' > $L/exp_gemm10.txt; echo "exp_gemm10 rc=$?" >> $L/summary.txt
timeout 40 $B/bench_gemm_peers 4096 4096 4096 0 4096 3000 4096 0 2048 2047 2049 0 64 8192 8192 0 > $L/bench_gemm_peers.txt 2>&1; echo "bench_gemm_peers rc=$? $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cat $L/summary.txt
grep -E "run-kernels|DISAGREE|^==" $L/difftest.txt | head -24
grep -hE "^FAIL| FAIL|: PASS$|: FAIL" $L/*_test.txt | head -12
grep -E "FAIL|BENCH" $L/exp_gemm10.txt
grep -E "^BENCH" $L/bench_gemm_peers.txt | grep "build=default" | sed "s/rel_diff.*//" | cut -c1-200
