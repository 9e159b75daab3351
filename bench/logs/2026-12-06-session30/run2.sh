#!/bin/bash
# Session 30, run 2: 128-key blocks for D64 and 96 for GQA D128 (full, sm_90a) -- attention_test,
# gemm_family_test (GQA), the difftest of attention and attention_gqa, exp31, torch SDPA peers.
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry3.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader | tee $L/gpu.txt
( for t in attention_test gemm_family_test c_interface_test configs_per_arch_test; do timeout 200 $B/$t > $L/$t.txt 2>&1; echo "$t rc=$?" >> $L/summary.txt; done ) &
( DIFFTEST_JOBS=4 timeout 200 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cd devcarry/exp && timeout 120 ./exp31 > $L/exp31.txt 2>&1; echo "exp31 rc=$?" >> $L/summary.txt; cd ../..
timeout 100 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so > $L/peers_d128.txt 2>&1; echo "peers d128 rc=$?" >> $L/summary.txt
timeout 100 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so --d64 > $L/peers_d64.txt 2>&1; echo "peers d64 rc=$?" >> $L/summary.txt
timeout 100 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so --gqa 8 > $L/peers_gqa.txt 2>&1; echo "peers gqa rc=$?" >> $L/summary.txt
echo "total $(( $(date +%s) - T0 ))s" >> $L/summary.txt
cat $L/summary.txt
grep -E "^==|run-kernels|DISAGREE|FAIL" $L/difftest.txt | head -20
grep -hE "FAIL" $L/*_test.txt | head -20
grep -E "CHECK|BENCH" $L/exp31.txt
for f in d128 d64 gqa; do grep -E "ATTN|WRONG|refused|Error|error" $L/peers_$f.txt | head -12; done
