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
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 150 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( timeout 120 compute-sanitizer --tool racecheck $B/attention_test small > $L/racecheck.txt 2>&1; echo "racecheck rc=$?" >> $L/summary.txt ) &
( DIFFTEST_JOBS=4 timeout 180 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
echo "phase A $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "DISAGREE|FAIL|failures" $L/difftest.txt | grep -v " 0 failures" | head -10
grep -E "difftest:.*failures" $L/difftest.txt | awk '{s+=$(NF-1)} END {print "difftest failures total", s}'
grep -hE "FAIL" $L/*_test.txt | head -10
# (D = 128, D = 64 and GQA timings: exp41 runs 1-2; the device budget left only varlen.)
timeout 60 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so --varlen > $L/peers_varlen.txt 2>&1; echo "peers varlen rc=$?"
grep -E "ATTN|WRONG|all outputs|CHECK|NOTE" $L/peers_varlen.txt
grep -E "RACECHECK SUMMARY|ERROR SUMMARY|small:" $L/racecheck.txt
echo "total $(( $(date +%s) - T0 ))s"
