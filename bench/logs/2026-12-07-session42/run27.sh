#!/bin/bash
# Session 42, run 27: exp50 (TMA bulk stores of the staged rows against 16-byte vectors), every
# GPU test program, the differential test of every bundled kernel (every build against the
# reference), then again with misaligned tensors (--misalign), and racecheck on gemm's.
# Carry: devcarry/e50.tar.xz (exp50), devcarry/carry50.tar.xz (build/gpu-bin without bench_*),
# devcarry/dt50.tar.xz (build/difftest).
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && for f in e50 carry50 dt50; do tar xJf devcarry/$f.tar.xz -C /tmp/c; done
timeout 200 /tmp/c/e50/exp50 > $OUT/exp50.txt 2>&1; echo "exp50 rc=$?"
cat $OUT/exp50.txt
echo "exp50 done $(( $(date +%s) - T0 ))s"
B=/tmp/c/gpu-bin
D=/tmp/c/dt
L=$OUT/logs; mkdir -p $L
( DIFFTEST_JOBS=6 timeout 200 test/gpu/difftest/run-kernels.sh $B/tlc-difftest $D > $OUT/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt
  DIFFTEST_JOBS=6 timeout 200 test/gpu/difftest/run-kernels.sh $B/tlc-difftest $D --misalign > $OUT/difftest-misalign.txt 2>&1; echo "difftest-misalign rc=$?" >> $L/summary.txt ) &
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 250 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' )
wait
sort $L/summary.txt | tr '\n' ' '; echo
for f in difftest difftest-misalign; do echo "$f: $(grep -c 'PASS' $OUT/$f.txt) PASS lines"; grep -E "DISAGREE|FAIL|mismatch|ALL AGREE" $OUT/$f.txt | grep -v "mismatches 0/" | head -10; grep -h "with TMA" $OUT/$f.txt | awk '{t+=$2; v+=$8} END {print "launches storing rows with TMA", t, "as vectors", v}'; done
grep -hE "FAIL|SOME" $L/*_test.txt | head -20
timeout 100 compute-sanitizer --tool racecheck $B/tlc-difftest --fast $D/fast/gemm.fatbin \
  --fast-manifest $D/fast/gemm.json --ref $D/ref/gemm.fatbin --ref-manifest $D/ref/gemm.json \
  --cases 2 --misalign > $OUT/racecheck.txt 2>&1
echo "racecheck rc=$?"; tail -2 $OUT/racecheck.txt
echo "total $(( $(date +%s) - T0 ))s"
