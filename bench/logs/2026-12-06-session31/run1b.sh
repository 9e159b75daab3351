#!/bin/bash
# Session 31, call 1b: the summaries call 1's output lost (its tail was cut): every GPU test's
# exit status, the difftest's verdict lines, decode_peers with 8 K/V heads.
set -u
mkdir -p /tmp/c && [ -d /tmp/c/gpu-bin ] || tar xJf devcarry/carry1.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 240 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 330 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
timeout 120 python3 bench/decode_peers.py --shim $B/libtlc_bench_shim.so --shapes 16x32x8x8192x1 --splits 2,3,4,6 > $L/decode_peers.txt 2>&1; echo "decode_peers rc=$?" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "run-kernels|DISAGREE|FAIL|ALL" $L/difftest.txt | tail -8
grep -hcE "^PASS" $L/*_test.txt | paste -sd+ | bc
grep -hE "FAIL" $L/*_test.txt | head -10
grep -E "DECODE" $L/decode_peers.txt
