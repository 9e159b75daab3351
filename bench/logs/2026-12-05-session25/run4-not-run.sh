#!/bin/bash
# Session 25, call 4 (short): softmax's 16-bit configuration 0 (softmax_test, difftest cases,
# timings) and part of a fresh random campaign with tlc-merge-identical-blocks.
set -u
T0=$(date +%s)
tar xJf devcarry/carry.tar.xz
B=$PWD/build/gpu-bin; I=$PWD/build/inv; D=$B/tlc-difftest
L=/tmp/logs/run4; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv > $L/smi.txt
( timeout 50 $B/softmax_test > $L/softmax_test.txt 2>&1; echo "softmax_test rc=$?" >> $L/summary.txt; timeout 20 $B/example_app_test > $L/example_app_test.txt 2>&1; echo "example_app_test rc=$?" >> $L/summary.txt ) &
( mkdir -p c27; for f in build/campaign27/s27000[0-2]*; do ln -sf $PWD/$f c27/; done
  timeout 60 test/gpu/difftest/campaign.sh run $D c27 8 > $L/campaign.txt 2>&1; echo "campaign rc=$?" >> $L/summary.txt ) &
( for c in "M=17,N=24577" "M=40,N=16384" "M=5,N=20001" "M=6,N=32768" "M=7,N=7500"; do echo "== softmax bf16 $c"; timeout 20 $D --fast $I/softmax_bf16.fatbin --fast-manifest $I/softmax_bf16.json --ref $I/softmax_bf16_ref.fatbin --ref-manifest $I/softmax_bf16_ref.json --case "$c"; done
  echo "== fp8acc"; timeout 20 $D --fast $I/fp8acc_fast.fatbin --fast-manifest $I/fp8acc_fast.json --ref $I/fp8acc_ref.fatbin --ref-manifest $I/fp8acc_ref.json --case "M=256,K=4096,N=256"
  echo "== s2600028"; timeout 30 $D --fast $I/s2600028.fatbin --fast-manifest $I/s2600028.json --ref $I/s2600028_ref.fatbin --ref-manifest $I/s2600028_ref.json --kernel k5 --seed 2600028 --case "M=1000,K=1111,N=778"
) > $L/investigate.txt 2>&1 &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
timeout 50 python3 bench/norms_peers.py --shim $B/libtlc_bench_shim.so --shapes 8192x32768,16384x16384,8192x20000 --ops softmax --dtypes bf16 --warmup 5 --iters 20 > $L/softmax_peers.txt 2>&1; echo "softmax peers rc=$?" >> $L/summary.txt
echo "total $(( $(date +%s) - T0 ))s" >> $L/summary.txt
tar czf $OUT/logs4.tar.gz -C /tmp logs
cat $L/summary.txt
grep -h "FAIL" $L/softmax_test.txt | head -5; tail -1 $L/softmax_test.txt
grep -E "^==|FAIL|difftest:" $L/investigate.txt | head -30
tail -3 $L/campaign.txt
grep -E "^PEERS" $L/softmax_peers.txt | cut -c1-200
