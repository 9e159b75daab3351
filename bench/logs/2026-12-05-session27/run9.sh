#!/bin/bash
# Session 27, call 9: every GPU test program and the difftest of every kernel in four builds after
# the periodic cp.async chunks (46 of 74 kernel files' PTX changed), then old/new timings in one
# process (devcarry/ab: attention, w4a16_decode, gemm_loop, softmax).
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv > $L/smi.txt
runtest() { local t=$1; local s=$(date +%s); timeout 250 $B/$t > $L/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s ))s" >> $L/summary.txt; }
export -f runtest; export B L
( ls $B | grep '_test$' | xargs -P3 -I{} bash -c 'runtest {}' ) &
( DIFFTEST_JOBS=4 timeout 280 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$? $(( $(date +%s) - T0 ))s" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
timeout 120 devcarry/ab > $L/ab.txt 2>&1; echo "ab rc=$? $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cat $L/summary.txt
grep -h "FAIL" $L/*_test.txt | head -20
grep -E "difftest:.*[1-9][0-9]* failures|FAIL|DISAGREE|ALL AGREE|rc=[1-9]" $L/difftest.txt | grep -v " 0 failures" | head -20
grep -c "0 failures" $L/difftest.txt
cat $L/ab.txt
