#!/bin/bash
# Session 40: exp45 (a small GEMM's host time: single launches, bursts, the host's issue time;
# gemm.tile with and without `when M <= 64`) with the runtime of the session's start (exp45old)
# and with the one that raises a function's shared memory limit once (exp45new); then every GPU
# test program on the new runtime. Carry: devcarry/carry44.tar.xz (build/gpu-bin without bench_*,
# tlc-difftest), devcarry/e45.tar.xz (exp45old, exp45new, gemm.fatbin).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && tar xJf devcarry/carry44.tar.xz -C /tmp/c && tar xJf devcarry/e45.tar.xz -C /tmp/c
L=$OUT/logs; mkdir -p $L
cd /tmp/c/e45
for r in old new old new; do
  timeout 120 ./exp45$r > $OUT/exp45$r.txt 2>&1; echo "exp45$r rc=$?"
  grep -E "HOST|GEOMEAN|FAIL" $OUT/exp45$r.txt
done
cd - > /dev/null
echo "exp45 done $(( $(date +%s) - T0 ))s"
B=/tmp/c/gpu-bin
( ls $B/*_test | xargs -P4 -I{} bash -c 'n=$(basename {}); timeout 280 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' )
sort $L/summary.txt | tr '\n' ' '; echo
grep -hE "FAIL|SOME" $L/*_test.txt | head -20
echo "total $(( $(date +%s) - T0 ))s"
