#!/bin/bash
# Session 40: exp46 (skinny M with 64 x 32 tiles on wgmma) and the differential test of its
# builds n32 and n32when (every configuration's entries, the 64 x 32 ones included, against the
# reference build). Carry: devcarry/e46.tar.xz (exp46, dt/{fast,ref}, tlc-difftest).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && tar xJf devcarry/e46.tar.xz -C /tmp/c
timeout 200 /tmp/c/e46/exp46 > $OUT/exp46.txt 2>&1; echo "exp46 rc=$?"
cat $OUT/exp46.txt | sed 's/cublas/cb/'
echo "exp46 done $(( $(date +%s) - T0 ))s"
DIFFTEST_JOBS=2 timeout 200 test/gpu/difftest/run-kernels.sh /tmp/c/e46/tlc-difftest /tmp/c/e46/dt > $OUT/difftest.txt 2>&1; echo "difftest rc=$?"
grep -E "^==|DISAGREE|AGREE|FAIL|cases" $OUT/difftest.txt | head -30
echo "total $(( $(date +%s) - T0 ))s"
