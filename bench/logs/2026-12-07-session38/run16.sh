#!/bin/bash
# Session 38: one call for everything (device machines were hard to start). Phase A on the
# build of b8f1063 + (carry40.tar.xz: gpu-bin without bench_*, difftest/): every GPU test
# program (gemm_test with the default stream-K rule's cases and gemm_bias_gelu's 128 x 192
# cases, fp8_gemm_test with fp8's 128 x 192), the differential test of the two kernel files
# that changed (gemm_bias_gelu.tile, fp8_gemm.tile; the device budget was short). Phase B:
# fp8_gemm_peers.py --variants (fp8's 128 x 192 against torch._scaled_mm), exp44 (cluster
# pairs, skinny tiles, 256 x 128 tiles, stream-K on few-tile shapes; built from f182d87's
# gemm.tile, the launcher's stream-K rule then: off unless asked).
set -u
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && tar xJf devcarry/carry40.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
echo "untar $(( $(date +%s) - T0 ))s"
( ls $B/*_test | xargs -P4 -I{} bash -c 'n=$(basename {}); timeout 120 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( mkdir -p /tmp/d && for b in ref fast sm_80 mma_sync register; do mkdir -p /tmp/d/$b; cp /tmp/c/difftest/$b/gemm_bias_gelu.* /tmp/c/difftest/$b/fp8_gemm.* /tmp/d/$b/ 2>/dev/null; done
  DIFFTEST_JOBS=4 timeout 120 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/d > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "DISAGREE|ALL AGREE|FAIL" $L/difftest.txt | head -10
grep -hE "FAIL|SOME" $L/*_test.txt | head -20
grep -hE "stream-K automatic" $L/gemm_test.txt | head
xz -T4 $L/difftest.txt
timeout 60 python3 bench/fp8_gemm_peers.py --shim $B/libtlc_bench_shim.so --variants \
  --shapes 8192x8192x8192,4096x4096x4096,2048x2048x2048,8192x8192x1024,4000x3000x4000,1024x3000x4096 \
  > $OUT/fp8.txt 2>&1; echo "fp8 rc=$?"
grep -vE "^\s*$" $OUT/fp8.txt | tail -45
timeout 150 /tmp/c/e44/exp44 > $OUT/exp44.txt 2>&1; echo "exp44 rc=$?"
cat $OUT/exp44.txt
echo "total $(( $(date +%s) - T0 ))s"
