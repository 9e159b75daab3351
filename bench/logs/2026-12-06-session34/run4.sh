#!/bin/bash
# Session 34, call 4: the difftest of attention and attention_gqa (fast, sm_80, mma_sync and
# register builds of the final tlc) against references built with -D BM=64 -D BN=64 -D WARPS=4
# (run 3: the generic lowering left the new 128 x 128 configuration out of the reference build).
set -u
T0=$(date +%s)
DIFFTEST_JOBS=4 timeout 200 test/gpu/difftest/run-kernels.sh devcarry/dt/bin/tlc-difftest devcarry/dt > $OUT/difftest.txt 2>&1; echo "difftest rc=$?"
grep -E "^==|failures|FAIL|skipped|entries" $OUT/difftest.txt | head -40
echo "total $(( $(date +%s) - T0 ))s"
