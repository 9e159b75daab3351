#!/bin/bash
# Session 36, call 1: the build of HEAD with attention_varlen's key loop a cp.async ring again
# (df8654d re-applied; every other kernel as the thirty-fifth session's final build): every GPU
# test, the difftest of every kernel (fast, sm_80, mma_sync and register builds against the
# reference), racecheck of attention_test small, varlen against cuDNN/flash in one process.
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry36.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv,noheader
echo "untar $(( $(date +%s) - T0 ))s"
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 200 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( timeout 330 compute-sanitizer --tool racecheck $B/attention_test small > $L/racecheck.txt 2>&1; echo "racecheck rc=$?" >> $L/summary.txt ) &
( DIFFTEST_JOBS=4 timeout 300 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "DISAGREE|ALL AGREE" $L/difftest.txt | head -10
grep -hE "FAIL" $L/*_test.txt | head -10
grep -E "RACECHECK SUMMARY|ERROR SUMMARY|small:" $L/racecheck.txt
timeout 90 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so --varlen > $L/peers_varlen.txt 2>&1; echo "peers varlen rc=$?"
grep -E "ATTN|WRONG|all outputs|CHECK|NOTE" $L/peers_varlen.txt | head -20
echo "total $(( $(date +%s) - T0 ))s"
