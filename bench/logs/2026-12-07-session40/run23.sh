#!/bin/bash
# Session 40: exp47 (64-row tiles with BK = 128 for skinny M), then the differential test of
# gemm.tile without `when M <= 64` (every build: sm_90a, sm_80, mma-sync, register, against the
# reference) and every GPU test program on that build. Carry: devcarry/carry45.tar.xz
# (build/gpu-bin without bench_*), devcarry/dt45.tar.xz (build/difftest/*/gemm.*),
# devcarry/e47.tar.xz (exp47).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && for f in carry45 dt45 e47; do tar xJf devcarry/$f.tar.xz -C /tmp/c; done
L=$OUT/logs; mkdir -p $L
timeout 150 /tmp/c/e47/exp47 > $OUT/exp47.txt 2>&1; echo "exp47 rc=$?"
sed 's/cublas/cb/' $OUT/exp47.txt
echo "exp47 done $(( $(date +%s) - T0 ))s"
B=/tmp/c/gpu-bin
( DIFFTEST_JOBS=3 timeout 200 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/dt45 > $OUT/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 280 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' )
wait
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "^==|DISAGREE|AGREE|failures" $OUT/difftest.txt | head -12
grep -hE "FAIL|SOME" $L/*_test.txt | head -20
grep -hE "select_for|skinny" $L/gemm_test.txt | head -12
echo "total $(( $(date +%s) - T0 ))s"
