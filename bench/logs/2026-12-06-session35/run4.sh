#!/bin/bash
# Session 35, call 4 (what the device budget allowed after many failed starts): the final
# build's attention_test and attention_varlen_test, racecheck of attention_test small, the
# difftest of the attention kernels (attention, attention_gqa, attention_varlen,
# attention_decode, linear_attention: fast, sm_80, mma_sync and register builds against the
# reference), varlen against cuDNN/flash in one process.
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry35s.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv,noheader
for t in attention_test attention_varlen_test; do ( timeout 100 $B/$t > $L/$t.txt 2>&1; echo "$t rc=$?" >> $L/summary.txt ) & done
( timeout 90 compute-sanitizer --tool racecheck $B/attention_test small > $L/racecheck.txt 2>&1; echo "racecheck rc=$?" >> $L/summary.txt ) &
( DIFFTEST_JOBS=4 timeout 110 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "^==|failures|FAIL|DISAGREE" $L/difftest.txt | head -20
grep -hE "FAIL|passed|failed" $L/attention_test.txt $L/attention_varlen_test.txt | tail -6
grep -E "RACECHECK SUMMARY|ERROR SUMMARY|small:" $L/racecheck.txt
timeout 40 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so --varlen > $L/peers_varlen.txt 2>&1; echo "peers varlen rc=$?"
grep -E "ATTN|WRONG|all outputs|CHECK|NOTE" $L/peers_varlen.txt
echo "total $(( $(date +%s) - T0 ))s"
