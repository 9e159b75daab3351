#!/bin/bash
# Session 41, run 24: exp48 (gemm.tile with staged stores against direct ones and cuBLAS), then
# the differential test of every bundled kernel (every build against the reference) and
# racecheck on gemm's. Carry: devcarry/e48.tar.xz (exp48), devcarry/carry48.tar.xz
# (build/gpu-bin without bench_*), devcarry/dt48.tar.xz (build/difftest).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && for f in e48 carry48 dt48; do tar xJf devcarry/$f.tar.xz -C /tmp/c; done
timeout 200 /tmp/c/e48/exp48 > $OUT/exp48.txt 2>&1; echo "exp48 rc=$?"
cat $OUT/exp48.txt
echo "exp48 done $(( $(date +%s) - T0 ))s"
B=/tmp/c/gpu-bin
DIFFTEST_JOBS=8 timeout 240 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/dt > $OUT/difftest.txt 2>&1
echo "difftest rc=$?"
grep -cE "ALL AGREE" $OUT/difftest.txt; grep -E "DISAGREE|FAIL|mismatch" $OUT/difftest.txt | head -20
tail -3 $OUT/difftest.txt
echo "difftest done $(( $(date +%s) - T0 ))s"
D=/tmp/c/dt
timeout 120 compute-sanitizer --tool racecheck $B/tlc-difftest --fast $D/fast/gemm.fatbin \
  --fast-manifest $D/fast/gemm.json --ref $D/ref/gemm.fatbin --ref-manifest $D/ref/gemm.json \
  --cases 2 > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; tail -5 $OUT/racecheck.txt
echo "total $(( $(date +%s) - T0 ))s"
