#!/bin/bash
# Session 32, call 5 (run5): the variant choice's 1.5x margin (chooseVariant) -- gemm_test
# (stream-K cases switched on explicitly, CUDA graphs with and without), exp34 again.
cd devcarry/exp
timeout 240 ./gemm_test > $OUT/gemm_test.txt 2>&1; echo "gemm_test rc=$?"
grep -cE "PASS" $OUT/gemm_test.txt; grep -E "FAIL|select_for" $OUT/gemm_test.txt | head
timeout 240 ./exp34 > $OUT/exp34.txt 2>&1; echo "exp34 rc=$?"
grep FAIL $OUT/exp34.txt | head -3
grep BENCH $OUT/exp34.txt
