#!/bin/bash
set -u
L=$OUT/logs; mkdir -p $L
P=devcarry/prof
NCU="ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section LaunchStats --section MemoryWorkloadAnalysis"
for cfg in "default 1 4" "default 16 4" "w2 16 4" "default 1 8"; do
  set -- $cfg
  echo "######## $cfg" >> $L/ncu.txt
  timeout 120 $NCU -k regex:w4a16_decode --launch-skip 2 --launch-count 2 $P $1 $2 $3 4 >> $L/ncu.txt 2>&1
done
grep -E "########|w4a16_decode_|Duration|DRAM Throughput|Memory Throughput|Compute \(SM\)|Achieved Occupancy|Registers Per|Issue Slots Busy|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Theoretical Occupancy|Block Limit" $L/ncu.txt | head -150
