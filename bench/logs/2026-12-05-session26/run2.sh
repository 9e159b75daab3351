#!/bin/bash
# Session 26, call 2 (shortened: device time was short): configs_per_arch_test (exclusive conditions), norms_test (rmsnorm's
# configuration 0 for 16-bit rows >= 3.5 H, layernorm's new configuration 2), difftest of the
# three row kernels, timings in one process.
set -u
T0=$(date +%s)
tar xJf devcarry/carry.tar.xz
B=$PWD/build/gpu-bin; I=$PWD/build/inv; K=$PWD/build/kernels; D=$B/tlc-difftest
L=/tmp/logs/run2; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv > $L/smi.txt
( for t in configs_per_arch_test norms_test; do timeout 150 $B/$t > $L/$t.txt 2>&1; echo "$t rc=$?" >> $L/summary.txt; done ) &
( for c in "M=17,N=24577" "M=40,N=16384" "M=5,N=20001" "M=6,N=32768" "M=7,N=7500"; do echo "== softmax bf16 $c"; timeout 30 $D --fast $I/softmax_bf16.fatbin --fast-manifest $I/softmax_bf16.json --ref $I/softmax_bf16_ref.fatbin --ref-manifest $I/softmax_bf16_ref.json --case "$c"; done
  for op in rmsnorm layernorm; do for t in "" _f32; do for c in "M=3,N=5000" "M=5,N=16384" "M=3,N=20001" "M=6,N=32768" "M=530,N=30000" "M=600,N=12000" "M=2,N=65536" "M=33,N=3000"; do echo "== $op$t $c"; timeout 30 $D --fast $K/$op$t.fatbin --fast-manifest $K/$op$t.json --ref $I/$op${t}_ref.fatbin --ref-manifest $I/$op${t}_ref.json --case "$c"; done; done; done
) > $L/difftest.txt 2>&1 &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
timeout 100 python3 bench/norms_peers.py --shim $B/libtlc_bench_shim.so --shapes 32768x4096,8192x32768 --ops softmax,rmsnorm,layernorm,fp8_cast,rmsnorm_residual,layernorm_residual --dtypes bf16,f32 --warmup 5 --iters 20 > $L/norms_bar.txt 2>&1; echo "norms bar rc=$?" >> $L/summary.txt
echo "total $(( $(date +%s) - T0 ))s" >> $L/summary.txt
tar czf $OUT/logs2.tar.gz -C /tmp logs
cat $L/summary.txt
for t in configs_per_arch_test norms_test; do grep -h "FAIL" $L/$t.txt | head -5; tail -1 $L/$t.txt; done
grep -E "^==|FAIL|difftest:" $L/difftest.txt | paste - - | head -60
grep -E "^PEERS|^VARIANT|CHECK" $L/norms_bar.txt | cut -c25-200
