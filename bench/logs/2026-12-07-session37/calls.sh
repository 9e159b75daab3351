#!/bin/bash
# Session 37's device calls (H100), as run. Carry: devcarry/ (carry36.tar.xz: build/gpu-bin
# without bench_* plus build/difftest of f6bf324's tree; e42/: build-exp42.sh's library).
# Call 1: every GPU test, racecheck, exp42, varlen peers, SASS counts.
#   bash bench/logs/2026-12-06-session36/run12.sh
# Call 2: the differential test alone, 8 at a time (run12's 230 s limit cut it off at 4 jobs;
# run-kernels.sh prints only at the end).
mkdir -p /tmp/c && tar xJf devcarry/carry36.tar.xz -C /tmp/c && T0=$(date +%s)
DIFFTEST_JOBS=8 timeout 480 test/gpu/difftest/run-kernels.sh /tmp/c/gpu-bin/tlc-difftest /tmp/c/difftest > $OUT/difftest.txt 2>&1
echo "difftest rc=$? $(( $(date +%s) - T0 ))s"
grep -cE "^== " $OUT/difftest.txt
grep -E "DISAGREE|ALL AGREE|FAIL|mismatch" $OUT/difftest.txt | head -20
xz -T4 $OUT/difftest.txt
