#!/bin/bash
# Session 32, call 6 (run6): the final build (stream-K off by default, the variant choice's 1.5x
# margin) -- every GPU test, the difftest of every kernel (stream-K entries split along K).
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry6.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv,noheader
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 240 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 330 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "total $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "DISAGREE|FAIL|ALL AGREE|stream-K|difftest:" $L/difftest.txt | sort | uniq -c | head -20
grep -hE "FAIL" $L/*_test.txt | head -10
