#!/bin/bash
# Session 31, call 1: tile-warp-specialize (the TMA ring's producer warpgroup, mbarriers and
# persistent tile loops written out in the tile dialect, lowered op by op) -- every GPU test,
# the difftest of every kernel, racecheck and memcheck of gemm_test small, exp32 (gemm.tile
# built by the tlc before and after, and cuBLAS, in one process).
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry1.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 240 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 330 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
compute-sanitizer --tool racecheck --error-exitcode 3 $B/gemm_test small > $L/racecheck_gemm.txt 2>&1; echo "racecheck gemm rc=$? $(tail -1 $L/racecheck_gemm.txt)" >> $L/summary.txt
compute-sanitizer --tool memcheck --error-exitcode 3 $B/gemm_test small > $L/memcheck_gemm.txt 2>&1; echo "memcheck gemm rc=$? $(tail -1 $L/memcheck_gemm.txt)" >> $L/summary.txt
timeout 200 devcarry/exp/exp32 > $L/exp32.txt 2>&1; echo "exp32 rc=$?" >> $L/summary.txt
echo "total $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cat $L/summary.txt
grep -E "^==|run-kernels|DISAGREE|FAIL" $L/difftest.txt | head -30
grep -hE "FAIL" $L/*_test.txt | head -20
grep -E "CHECK|BENCH" $L/exp32.txt
timeout 120 python3 bench/decode_peers.py --shim $B/libtlc_bench_shim.so --shapes 16x32x8x8192x1,16x32x32x8192x1 --splits 2,3,4,6 > $L/decode_peers.txt 2>&1; echo "decode_peers rc=$?" >> $L/summary.txt
grep -vE "^\s*$" $L/decode_peers.txt | tail -16
