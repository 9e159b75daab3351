#!/bin/bash
# Session 30, call 2: the full build (transpose_a on wgmma, A operands through shared memory,
# attention BN = 96 on sm_90a) -- every GPU test, the difftest of every kernel, exp30, peers.
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry2.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 240 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 330 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cd devcarry/exp && timeout 120 ./exp30 > $L/exp30.txt 2>&1; echo "exp30 rc=$?" >> $L/summary.txt; cd ../..
timeout 120 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so > $L/attention_peers.txt 2>&1; echo "attention_peers rc=$?" >> $L/summary.txt
timeout 90 python3 devcarry/peers.py --dtype fp16 --attn 4x32x4096x64 --json $L/peers_d64.json > $L/peers_d64.txt 2>&1; echo "peers d64 rc=$?" >> $L/summary.txt
compute-sanitizer --tool racecheck --error-exitcode 3 $B/attention_test small > $L/racecheck_attention.txt 2>&1; echo "racecheck attention rc=$? $(tail -1 $L/racecheck_attention.txt)" >> $L/summary.txt
echo "total $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cat $L/summary.txt
grep -E "run-kernels|DISAGREE|FAIL" $L/difftest.txt | head -30
grep -E "layout_conversions|wgmma_register|row_values" $L/difftest.txt | head -20
grep -hE "FAIL" $L/*_test.txt | head -20
grep -E "CHECK|BENCH" $L/exp30.txt
grep -vE "^\s*$" $L/attention_peers.txt | tail -14
grep -vE "^\s*$" $L/peers_d64.txt | tail -8
