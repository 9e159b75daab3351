#!/bin/bash
# Session 32, call 3 (run3): ncu of gemm 1000x1112x776 (128x128 tiles) and 32x4096x4096 (64x64) with
# whole tiles and with stream-K: durations, memory traffic, warp states.
cd devcarry/exp
M="gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio,smsp__average_warps_issue_stalled_membar_per_issue_active.ratio,smsp__average_warps_issue_stalled_sleeping_per_issue_active.ratio,smsp__cycles_active.avg,launch__grid_size"
timeout 300 ncu --clock-control none -k regex:gemm --launch-skip 0 --launch-count 8 --metrics $M ./exp35 ncu 2>&1 | grep -E "gemm__|duration|dram__|lts__|sm__thr|inst_exec|stalled|cycles_active|grid_size" | awk '{print $1, $NF}' | paste -sd' ' | sed 's/gemm__/\ngemm__/g'
