#!/bin/bash
set -u
L=$OUT/logs; mkdir -p $L
cd devcarry/exp
./exp_gemm8 2>&1 | sed 's/base128/q128x256/g; s/fl128/oob128x256/g; s/base256/q128x128/g; s/fl256/oob128x128/g' > $L/exp_gemm8.txt; echo "exp_gemm8 rc=$?"
for shape in "4096 3000 4096" "4096 3008 4096"; do
  echo "== ncu q128x256 $shape"
  ncu --clock-control none -k regex:gemm__tma --launch-skip 0 --launch-count 1 --section SpeedOfLight --metrics lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum,lts__t_requests_op_write.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum ./exp_gemm8 $shape 2>&1 | grep -E "Duration|L2 Cache Throughput|Compute \(SM\)|lts__|l1tex__"
  echo "== ncu cuBLAS $shape"
  ncu --clock-control none --launch-skip 0 --launch-count 1 --section SpeedOfLight --metrics lts__t_sectors_op_write.sum,lts__t_sectors_op_read.sum ./exp_gemm8 $shape 2>&1 | grep -E "^  [a-zA-Z_].*\(|Duration|L2 Cache Throughput|lts__"
done > $L/ncu8.txt
grep -E "FAIL|BENCH" $L/exp_gemm8.txt
cat $L/ncu8.txt
