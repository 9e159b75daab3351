#!/bin/bash
# Session 44, run 28. Carry: devcarry/e51 (build-exp51.sh: attention staged/direct/overlap/
# ping-pong builds), devcarry/e50.tar.xz (session 42's exp50: gemm.tile with TMA bulk stores
# against 16-byte vectors against cuBLAS), devcarry/carry51.tar.xz and dt51.tar.xz (build/gpu-bin
# without bench_* and build/difftest of HEAD configured with -DTLC_KERNEL_OPTIONS=
# --codegen=tma-stores: every bundled kernel with TMA stores and the staged attention output).
# Order by what matters most if the run is cut short: exp51's checks and timings; every GPU
# test and the differential test (plain, --misalign) beside each other; exp50; racecheck.
set -u
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
T0=$(date +%s)
E=bench/logs/2026-12-08-session44
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
mkdir -p /tmp/c && for f in e50 carry51 dt51; do tar xJf devcarry/$f.tar.xz -C /tmp/c; done
timeout 150 python3 $E/exp51.py devcarry/e51/libexp51.so --small > $OUT/exp51-small.txt 2>&1
echo "exp51 small rc=$?"; grep -E "FAIL|EXP42|Error|error" $OUT/exp51-small.txt | head -20
timeout 300 python3 $E/exp51.py devcarry/e51/libexp51.so > $OUT/exp51.txt 2>&1; echo "exp51 rc=$?"
grep -E "ATTN|FAIL|refused" $OUT/exp51.txt
for n in h_dir h_stg h_ov; do
  cuobjdump -sass devcarry/e51/$n.fatbin > /tmp/$n.sass 2>&1
  echo "$n: STL $(grep -c STL /tmp/$n.sass) LDL $(grep -c LDL /tmp/$n.sass) STS $(grep -c 'STS' /tmp/$n.sass) STG $(grep -c 'STG' /tmp/$n.sass)"
done
echo "exp51 done $(( $(date +%s) - T0 ))s"
B=/tmp/c/gpu-bin
D=/tmp/c/difftest
L=$OUT/logs; mkdir -p $L
( DIFFTEST_JOBS=6 timeout 200 test/gpu/difftest/run-kernels.sh $B/tlc-difftest $D > $OUT/difftest.txt 2>&1; echo "difftest rc=$?" >> $L/summary.txt
  DIFFTEST_JOBS=6 timeout 200 test/gpu/difftest/run-kernels.sh $B/tlc-difftest $D --misalign > $OUT/difftest-misalign.txt 2>&1; echo "difftest-misalign rc=$?" >> $L/summary.txt ) &
( ls $B/*_test | xargs -P3 -I{} bash -c 'n=$(basename {}); timeout 250 {} > '$L'/$n.txt 2>&1; echo "$n rc=$?" >> '$L'/summary.txt' )
wait
sort $L/summary.txt | tr '\n' ' '; echo
for f in difftest difftest-misalign; do echo "$f: $(grep -c 'PASS' $OUT/$f.txt) PASS lines"; grep -E "DISAGREE|FAIL|mismatch|ALL AGREE" $OUT/$f.txt | grep -v "mismatches 0/" | head -10; grep -h "with TMA" $OUT/$f.txt | awk '{t+=$2; v+=$8} END {print "launches storing rows with TMA", t, "as vectors", v}'; done
grep -hE "FAIL|SOME" $L/*_test.txt | head -20
echo "tests done $(( $(date +%s) - T0 ))s"
timeout 200 /tmp/c/e50/exp50 > $OUT/exp50.txt 2>&1; echo "exp50 rc=$?"
cat $OUT/exp50.txt
echo "exp50 done $(( $(date +%s) - T0 ))s"
timeout 60 python3 bench/attention_peers.py --shim $B/libtlc_bench_shim.so --gqa 8 > $OUT/peers-gqa.txt 2>&1; echo "peers gqa rc=$?"
grep -E "ATTN|WRONG|all outputs|CHECK" $OUT/peers-gqa.txt | head
timeout 100 compute-sanitizer --tool racecheck $B/tlc-difftest --fast $D/fast/gemm.fatbin \
  --fast-manifest $D/fast/gemm.json --ref $D/ref/gemm.fatbin --ref-manifest $D/ref/gemm.json \
  --cases 2 --misalign > $OUT/racecheck.txt 2>&1
echo "racecheck gemm rc=$?"; tail -2 $OUT/racecheck.txt
timeout 90 compute-sanitizer --tool racecheck $B/attention_test small > $OUT/racecheck-attention.txt 2>&1
echo "racecheck attention rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|small:" $OUT/racecheck-attention.txt
echo "total $(( $(date +%s) - T0 ))s"
