#!/bin/bash
# Session 38, call 1: (1) gemm_bias_gelu.tile's 128 x 192 configuration (c67e154, re-applied in
# e60e571): gemm_test and the differential test of gemm_bias_gelu; (2) fp8_gemm.tile's 128 x 192
# configuration: fp8_gemm_test, its differential test and fp8_gemm_peers.py --variants against
# torch._scaled_mm; (3) exp44 (cluster pairs, skinny-M tiles, stream-K on few-tile shapes).
# Carry: devcarry/carry39.tar.xz (gpu-bin: the test programs, tlc-difftest, the bench shim;
# difftest/*/{gemm_bias_gelu,fp8_gemm}.*; e44/exp44).
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && tar xJf devcarry/carry39.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
( for t in gemm_test fp8_gemm_test; do
    timeout 150 $B/$t > $L/$t.txt 2>&1; echo "$t rc=$?" >> $L/summary.txt
  done ) &
( DIFFTEST_JOBS=4 timeout 200 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1
  echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "tests $(( $(date +%s) - T0 ))s"; sort $L/summary.txt | tr '\n' ' '; echo
grep -hE "FAIL|SOME" $L/gemm_test.txt $L/fp8_gemm_test.txt | head -20
grep -E "run-kernels|DISAGREE|ALL AGREE" $L/difftest.txt | head
timeout 200 python3 bench/fp8_gemm_peers.py --shim $B/libtlc_bench_shim.so --variants \
  --shapes 8192x8192x8192,4096x4096x4096,2048x2048x2048,8192x8192x1024,4000x3000x4000,1024x3000x4096 \
  > $OUT/fp8.txt 2>&1; echo "fp8 rc=$?"
grep -vE "^\s*$" $OUT/fp8.txt | tail -60
timeout 300 /tmp/c/e44/exp44 > $OUT/exp44.txt 2>&1; echo "exp44 rc=$?"
cat $OUT/exp44.txt
echo "total $(( $(date +%s) - T0 ))s"
