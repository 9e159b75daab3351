#!/bin/bash
set -u
mkdir -p /tmp/c/gpu-bin && cp devcarry/shim/libtlc_bench_shim.so /tmp/c/gpu-bin/
L=$OUT/logs; mkdir -p $L
devcarry/attn/exp_attn > $L/exp_attn.txt 2>&1; echo "exp_attn rc=$?"
devcarry/attn/exp_attn 8 16 8192 >> $L/exp_attn.txt 2>&1; echo "exp_attn 8x16x8192 rc=$?"
timeout 200 python3 bench/attention_peers.py --shim /tmp/c/gpu-bin/libtlc_bench_shim.so > $L/attention_peers.txt 2>&1; echo "peers rc=$?"
devcarry/exp/exp_gemm 2>&1 | sed 's/base128/q128x128/g; s/fl128/q128x192/g; s/base256/q128x256/g; s/fl256/q64x64/g' > $L/exp_gemm.txt; echo "exp_gemm rc=$?"
cd devcarry/exp && ncu --clock-control none -k regex:gemm__tma --launch-skip 2 --launch-count 1 --section WarpStateStats --section SpeedOfLight --metrics smsp__pcsamp_warps_issue_stalled_long_scoreboard,smsp__pcsamp_warps_issue_stalled_barrier,smsp__pcsamp_warps_issue_stalled_wait,smsp__pcsamp_warps_issue_stalled_lg_throttle,smsp__pcsamp_warps_issue_stalled_selected,smsp__pcsamp_warps_issue_stalled_math_pipe_throttle,smsp__pcsamp_warps_issue_stalled_membar,smsp__pcsamp_sample_count ./exp_gemm 4096 4096 512 2>&1 | grep -E "smsp__|Throughput|Duration|Eligible|Issued" > $L/ncu_512.txt; cd - >/dev/null
grep -E "CHECK.*FAIL|BENCH" $L/exp_attn.txt
grep -vE "^\s*$" $L/attention_peers.txt | tail -12
grep -E "FAIL|BENCH" $L/exp_gemm.txt
cat $L/ncu_512.txt
