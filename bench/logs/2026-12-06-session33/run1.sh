#!/bin/bash
# Session 33, call 1 (run1): pairs of blocks in 2-block clusters sharing B's loads (TMA
# multicast) -- every GPU test (gemm_test's pair cases: odd row counts, clusters off), the
# difftest of every kernel (cluster launches alternating with stream-K on the GEMM-like
# entries), memcheck of gemm_test small; then exp37 alone (clusters on/off vs cuBLAS).
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry1.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv,noheader
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 240 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 330 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
( timeout 120 compute-sanitizer --tool memcheck $B/gemm_test small > $L/memcheck.txt 2>&1; echo "memcheck rc=$?" >> $L/summary.txt )
echo "tests $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "DISAGREE|FAIL|ALL AGREE|difftest:" $L/difftest.txt | sort | uniq -c | head -20
grep -hE "FAIL" $L/*_test.txt | head -10
grep -E "ERROR SUMMARY" $L/memcheck.txt
grep -cE "^PASS" $L/gemm_test.txt
if [ -x /tmp/c/exp37 ]; then
  timeout 200 /tmp/c/exp37 > $OUT/exp37.txt 2>&1; echo "exp37 rc=$?"
  grep -E "FAIL|BENCH" $OUT/exp37.txt
fi
echo "total $(( $(date +%s) - T0 ))s"
