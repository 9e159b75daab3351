#!/bin/bash
set -u
L=$OUT/logs; mkdir -p $L
timeout 200 devcarry/prof > $L/prof.txt 2>&1
grep -E "M=1 |M=16" $L/prof.txt | sort -t= -k3 | head -0
cat $L/prof.txt
timeout 150 ncu --clock-control none --section SourceCounters --section WarpStateStats --page source --print-source sass -k regex:split --launch-count 1 devcarry/prof h_b4 4 1 > $L/ncu_src.txt 2>&1
echo "ncu rc=$?"; wc -l $L/ncu_src.txt
