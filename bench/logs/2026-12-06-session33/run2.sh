#!/bin/bash
# Session 33, call 4 (run2): after the register-budget fix (calls 1-3 hung: 64 producer + 224
# consumer registers exceed the block's launch allocation, setmaxnreg.inc waited forever).
# A smoke test of every gemm.tile configuration with clusters off and on (diag.cpp), then every
# GPU test, the difftest of every kernel, memcheck of gemm_test small.
set -u
T0=$(date +%s)
mkdir -p /tmp/c && tar xJf devcarry/carry2.tar.xz -C /tmp/c
B=/tmp/c/gpu-bin; L=$OUT/logs; mkdir -p $L
nvidia-smi --query-gpu=name --format=csv,noheader
for m in off on; do timeout 40 /tmp/c/diag $m 0 > $L/diag-$m.txt 2>&1; echo "diag $m rc=$? $(grep -c ^OK $L/diag-$m.txt) ok"; grep -E "HANG|ERR" $L/diag-$m.txt; done
if grep -q HANG $L/diag-*.txt; then echo "hang: stop"; exit 1; fi
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 200 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' ) &
( DIFFTEST_JOBS=4 timeout 330 test/gpu/difftest/run-kernels.sh $B/tlc-difftest /tmp/c/difftest > $L/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt ) &
wait
( timeout 45 compute-sanitizer --tool memcheck $B/gemm_test small > $L/memcheck.txt 2>&1; echo "memcheck rc=$?" >> $L/summary.txt )
echo "tests $(( $(date +%s) - T0 ))s" >> $L/summary.txt
sort $L/summary.txt | tr '\n' ' '; echo
grep -E "DISAGREE|FAIL|ALL AGREE|difftest:" $L/difftest.txt | sort | uniq -c | head -20
grep -hE "FAIL" $L/*_test.txt | head -10
grep -E "ERROR SUMMARY" $L/memcheck.txt
echo "gemm_test PASS lines: $(grep -c ^PASS $L/gemm_test.txt)"; grep -E "pair|clusters|odd" $L/gemm_test.txt | head -12
echo "total $(( $(date +%s) - T0 ))s"
# Then exp37 alone (clusters on/off vs cuBLAS), within what is left of the call.
timeout $(( 540 - ($(date +%s) - T0) )) /tmp/c/exp37 8192 8192 8192 4096 4096 4096 2048 2048 2048 3001 3000 1000 4096 4096 512 5000 3000 4000 4096 4104 4096 1000 1112 776 1024 3000 4096 512 3000 8192 2000 3000 1000 6000 6000 2000 8192 8192 1024 2048 2047 2049 > $OUT/exp37.txt 2>&1; echo "exp37 rc=$?"
grep -E "FAIL|BENCH" $OUT/exp37.txt
echo "end $(( $(date +%s) - T0 ))s"
