#!/bin/bash
# Session 25, call 2: the GPU tests again with blocking test streams (the legacy stream's
# cuMemcpyHtoD/cuMemsetD32 raced the kernels in run 1), the run-1 difftest failures examined
# (fp8 wgmma accumulation, an atomic total, bf16 softmax 17 x 24577), then attention, decode,
# MLA and the GEMM family before/after tlc-gpu-to-nvvm (gpu-bin-mb: --codegen=merged-blocks).
set -u
T0=$(date +%s)
tar xJf devcarry/carry.tar.xz
B=$PWD/build/gpu-bin; M=$PWD/build/gpu-bin-mb; I=$PWD/build/inv; C=$PWD/build/campaign26
L=/tmp/logs/run2; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv > $L/smi.txt
runtest() { local t=$1; local s=$(date +%s); timeout 280 $B/$t > $L/$t.txt 2>&1; echo "$t rc=$? $(( $(date +%s) - s ))s" >> $L/summary.txt; }
export -f runtest; export B L
( ls $B | grep '_test$' | xargs -P3 -I{} bash -c 'runtest {}' ) &
( for i in 1 2 3; do timeout 60 $B/example_app_test > $L/example_app_$i.txt 2>&1; echo "example_app $i rc=$?" >> $L/summary.txt; timeout 60 $B/softmax_test > $L/softmax_$i.txt 2>&1; echo "softmax_test $i rc=$?" >> $L/summary.txt; done ) &
(
  D=$B/tlc-difftest
  for c in "M=256,K=64,N=256" "M=256,K=1111,N=256" "M=256,K=4096,N=256" "M=1000,K=1111,N=778"; do
    for b in fast mma; do
      echo "== fp8acc $b $c"; timeout 60 $D --fast $I/fp8acc_$b.fatbin --fast-manifest $I/fp8acc_$b.json --ref $I/fp8acc_ref.fatbin --ref-manifest $I/fp8acc_ref.json --case "$c" -v
    done
  done
  for b in new mb mma; do
    f=$C/s2600028; [ $b != new ] && f=$I/s2600028_$b
    echo "== s2600028 k5 $b"; timeout 60 $D --fast $f.fatbin --fast-manifest $f.json --ref $C/s2600028_ref.fatbin --ref-manifest $C/s2600028_ref.json --kernel k5 --seed 2600028 --case "M=1000,K=1111,N=778" -v
  done
  for i in 1 2 3; do echo "== s2600025 k7 run $i"; timeout 60 $D --fast $C/s2600025.fatbin --fast-manifest $C/s2600025.json --ref $C/s2600025_ref.fatbin --ref-manifest $C/s2600025_ref.json --kernel k7 --seed 2600025 --case "M=1000,N=1111" -v; done
  echo "== w4a16 difftest (RegisterLayouts: chooseCopySwizzle for the 2-row scale tile)"
  DIFFTEST_JOBS=4 timeout 120 test/gpu/difftest/run-kernels.sh $D $PWD/build/dt-w4
  for c in "M=17,N=24577" "M=5,N=8193" "M=3,N=32768"; do echo "== softmax bf16 $c"; timeout 60 $D --fast $I/softmax_bf16.fatbin --fast-manifest $I/softmax_bf16.json --ref $I/softmax_bf16_ref.fatbin --ref-manifest $I/softmax_bf16_ref.json --case "$c" -v; done
) > $L/investigate.txt 2>&1 &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
for r in 1 2; do
  for side in new old; do
    D=$B; [ $side = old ] && D=$M
    [ $(( $(date +%s) - T0 )) -gt 520 ] && break 2
    timeout 60 python3 bench/attention_peers.py --shim $D/libtlc_bench_shim.so --shapes 4x32x4096x128 > $L/attn_$side$r.txt 2>&1; echo "attn $side$r rc=$?" >> $L/summary.txt
    timeout 50 python3 bench/decode_peers.py --shim $D/libtlc_bench_shim.so > $L/decode_$side$r.txt 2>&1; echo "decode $side$r rc=$?" >> $L/summary.txt
    timeout 50 python3 bench/mla_peers.py --shim $D/libtlc_bench_shim.so --shapes 64x128x8192 > $L/mla_$side$r.txt 2>&1; echo "mla $side$r rc=$?" >> $L/summary.txt
    timeout 60 $D/bench_gemm_family > $L/family_$side$r.txt 2>&1; echo "family $side$r rc=$?" >> $L/summary.txt
  done
done
for r in 1 2; do
  [ $(( $(date +%s) - T0 )) -gt 560 ] && break
  timeout 30 $B/bench_gemm_family > $L/w4_new$r.txt 2>&1; echo "w4 new$r rc=$?" >> $L/summary.txt
  timeout 30 $M/bench_gemm_family_prev > $L/w4_prev$r.txt 2>&1; echo "w4 prev$r rc=$?" >> $L/summary.txt
done
left=$(( 585 - $(date +%s) + T0 ))
[ $left -gt 40 ] && { timeout $left python3 bench/norms_peers.py --shim $B/libtlc_bench_shim.so --shapes 8192x32768,16384x16384,8192x20000 --ops softmax,rmsnorm --dtypes bf16 --variants > $L/norms_variants.txt 2>&1; echo "norms variants rc=$?" >> $L/summary.txt; }
echo "total $(( $(date +%s) - T0 ))s" >> $L/summary.txt
tar czf $OUT/logs2.tar.gz -C /tmp logs
cat $L/summary.txt
grep -h "FAIL" $L/*_test.txt $L/example_app_*.txt $L/softmax_*.txt | head -10
grep -E "^==|max abs|FAIL|PASS|agree|difftest:|run-kernels" $L/investigate.txt | head -80
grep -h "w4a16" $L/family_*.txt $L/w4_*.txt | head -20
