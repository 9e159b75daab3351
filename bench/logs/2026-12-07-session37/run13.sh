#!/bin/bash
# Session 37, call 3: exp43 (gemm.tile with a 128 x 192 configuration against the shipped build
# and cuBLAS, one process) and, from the candidate build (gemm.tile's 128 x 192 configurations,
# chooseVariant's sqrt model; carry37.tar.xz: the GPU programs that use them and gemm's
# difftest builds), gemm_test, configs_per_arch_test, example_app_test, c_interface_test and the
# differential test of gemm.tile.
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && tar xJf devcarry/carry37.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
( for t in gemm_test configs_per_arch_test example_app_test c_interface_test; do
    timeout 150 $B/$t > $L/$t.txt 2>&1; echo "$t rc=$?" >> $L/summary.txt
  done ) &
( mkdir -p /tmp/d && for b in ref fast sm_80 mma_sync register; do mkdir -p /tmp/d/$b; cp /tmp/c/difftest/$b/gemm.* /tmp/d/$b/ 2>/dev/null; done
  DIFFTEST_JOBS=4 timeout 200 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/d > $L/difftest-gemm.txt 2>&1
  echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "tests $(( $(date +%s) - T0 ))s"; sort $L/summary.txt | tr '\n' ' '; echo
grep -hE "FAIL" $L/*.txt | head -10
grep -E "run-kernels" $L/difftest-gemm.txt
timeout 400 devcarry/e43/exp43 > $OUT/exp43.txt 2>&1; echo "exp43 rc=$?"
cat $OUT/exp43.txt
echo "total $(( $(date +%s) - T0 ))s"
