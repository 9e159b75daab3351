#!/bin/bash
# Session 32, call 1 (run1): stream-K in tile-warp-specialize -- every GPU test, the difftest of every
# kernel, racecheck and memcheck of gemm_test small, exp34 (gemm.tile with and without stream-K,
# each configuration forced, cuBLAS, one process).
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry3.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm,count --format=csv,noheader | tee $L/gpu.txt
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 240 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 330 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
compute-sanitizer --tool racecheck --error-exitcode 3 $B/gemm_test small > $L/racecheck_gemm.txt 2>&1; echo "racecheck gemm rc=$? $(tail -1 $L/racecheck_gemm.txt)" >> $L/summary.txt
compute-sanitizer --tool memcheck --error-exitcode 3 $B/gemm_test small > $L/memcheck_gemm.txt 2>&1; echo "memcheck gemm rc=$? $(tail -1 $L/memcheck_gemm.txt)" >> $L/summary.txt
timeout 240 devcarry/exp/exp34 > $L/exp34.txt 2>&1; echo "exp34 rc=$?" >> $L/summary.txt
echo "total $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cat $L/summary.txt | tr '\n' ' '; echo
grep -E "^==|run-kernels|DISAGREE|FAIL" $L/difftest.txt | head -20
grep -hE "FAIL|stream-K" $L/*_test.txt | head -30
grep -E "FAIL" $L/exp34.txt | head
grep -E "BENCH" $L/exp34.txt | sed 's/ ms [0-9.]* TF//'
