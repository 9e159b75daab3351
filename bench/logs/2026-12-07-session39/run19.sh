#!/bin/bash
# Session 39: session 38's run16.sh (run18.sh here until it was superseded) on the build with one plain entry per kernel on sm_90a (the launches TMA
# cannot serve run the last configuration without `when` or `on`). Carry: devcarry/carry42.tar.xz
# = build/gpu-bin without bench_* (stream-K default Off), build/difftest of gemm, gemm_bias_gelu
# and fp8_gemm, e44/exp44 (built before the plain-entry change: gemm.tile's own entries).
# Phase A: every GPU test program (gemm_test's StreamK::Automatic cases, the 128 x 192 cases of
# gemm_bias_gelu and fp8_gemm, the misaligned fp8 cases that take the plain entry), the
# differential test of the three files (every configuration's entries, misaligned launches).
# Phase B: fp8_gemm_peers.py --variants, exp44.cpp (cluster pairs, skinny tiles, 256 x 128
# tiles, stream-K On and Automatic, against cuBLAS).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && tar xJf devcarry/carry42.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
echo "untar $(( $(date +%s) - T0 ))s"
( ls $B/*_test | xargs -P4 -I{} bash -c 'n=$(basename {}); timeout 120 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 150 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "DISAGREE|ALL AGREE|FAIL" $L/difftest.txt | head -10
grep -hE "FAIL|SOME" $L/*_test.txt | head -20
grep -hE "stream-K automatic" $L/gemm_test.txt | head
xz -T4 $L/difftest.txt
timeout 60 python3 bench/fp8_gemm_peers.py --shim $B/libtlc_bench_shim.so --variants \
  --shapes 8192x8192x8192,4096x4096x4096,2048x2048x2048,8192x8192x1024,4000x3000x4000,1024x3000x4096 \
  > $OUT/fp8.txt 2>&1; echo "fp8 rc=$?"
grep -vE "^\s*$" $OUT/fp8.txt | tail -45
timeout 150 /tmp/c/e44/exp44 > $OUT/exp44.txt 2>&1; echo "exp44 rc=$?"
cat $OUT/exp44.txt
echo "total $(( $(date +%s) - T0 ))s"
