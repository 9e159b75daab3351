#!/bin/bash
# Session 35, call 3: the final build (attention's D = 64 configurations on producer rings,
# attention_varlen's key loop a cp.async ring, the A-fragment waits): every GPU test, the
# difftest of every kernel, attention / D = 64 / GQA / varlen against cuDNN and flash in one
# process (attention_peers.py), racecheck of attention_test small.
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry35.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv,noheader
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 180 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( timeout 120 compute-sanitizer --tool racecheck $B/attention_test small > $L/racecheck.txt 2>&1; echo "racecheck rc=$?" >> $L/summary.txt ) &
( DIFFTEST_JOBS=4 timeout 220 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "DISAGREE|FAIL|failures" $L/difftest.txt | grep -v " 0 failures" | head -10
grep -E "difftest:.*failures" $L/difftest.txt | awk '{s+=$(NF-1)} END {print "difftest failures total", s}'
grep -hE "FAIL" $L/*_test.txt | head -10
timeout 70 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so > $L/peers_d128.txt 2>&1; echo "peers d128 rc=$?"
grep -E "ATTN|WRONG|all outputs" $L/peers_d128.txt
timeout 50 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so --d64 --shapes 4x32x4096x64 > $L/peers_d64.txt 2>&1; echo "peers d64 rc=$?"
grep -E "ATTN|WRONG|all outputs" $L/peers_d64.txt
timeout 50 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so --gqa 8 > $L/peers_gqa.txt 2>&1; echo "peers gqa rc=$?"
grep -E "ATTN|WRONG|all outputs" $L/peers_gqa.txt
timeout 60 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so --varlen > $L/peers_varlen.txt 2>&1; echo "peers varlen rc=$?"
grep -E "ATTN|WRONG|all outputs|CHECK|NOTE" $L/peers_varlen.txt
grep -E "RACECHECK SUMMARY|ERROR SUMMARY|small:" $L/racecheck.txt
echo "total $(( $(date +%s) - T0 ))s"
