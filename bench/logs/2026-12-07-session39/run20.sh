#!/bin/bash
# Session 39: every GPU test program on the build with stream-K automatic by default and the
# widened rule (tiles on at most half of the multiprocessors, (P - tiles) x iterations >= 48 P).
# Carry: devcarry/carry43.tar.xz = build/gpu-bin without bench_*.
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name --format=csv,noheader
mkdir -p /tmp/c && tar xJf devcarry/carry43.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
( ls $B/*_test | xargs -P5 -I{} bash -c 'n=$(basename {}); timeout 240 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' )
sort $L/summary.txt | tr '\n' ' '; echo
grep -hE "FAIL|SOME" $L/*_test.txt | head -20
grep -hE "stream-K" $L/gemm_test.txt | head -20
echo "total $(( $(date +%s) - T0 ))s"
