#!/bin/bash
cd devcarry/exp
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
for f in base128 fl128 base256 fl256; do
  cuobjdump -sass $f.fatbin > $f.sass 2>/dev/null
  echo "$f: $(grep -c HGMMA $f.sass) HGMMA, $(grep -c 'WARPGROUP.DEPBAR' $f.sass) DEPBAR, $(grep -c 'WARPGROUP.ARRIVE' $f.sass) ARRIVE"
done
awk '/Function : gemm__tma/{f=1} /Function : gemm$/{f=0} f' fl256.sass | grep -n "HGMMA\|WARPGROUP\|SYNCS\|BRA" | head -60 > $OUT/fl256_loop.txt
awk '/Function : gemm__tma/{f=1} /Function : gemm$/{f=0} f' fl128.sass | grep -n "HGMMA\|WARPGROUP\|SYNCS\|BRA" | head -60 > $OUT/fl128_loop.txt
./exp_gemm 2>&1 | tee $OUT/exp_gemm.txt
