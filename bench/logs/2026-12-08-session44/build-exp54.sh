#!/bin/bash
# Session 44, exp54's builds: attention.tile on sm_90a at D = 128 (BM 128 on 8 warps, the
# producer ring, the output staged) with key blocks of BN = 128 (shipped), 144, 160 and 176
# (FlashAttention-3's non-causal choice), full and causal: with the output staged none of
# them spills. One namespace each, into one shared library for exp54.py.
# Usage: build-exp54.sh <tlc> <out-dir>
set -eu
ATTENTION_ARGS="-j 1 -D BM=128 -D WARPS=8"
source "$(dirname "$0")/attention-lib.sh"
for bn in 128 144 160 176; do
  build h_$bn -D BN=$bn
  build h_${bn}c -D BN=$bn -D CAUSAL=true
done
link libexp54.so -O1
rm -f "$out"/*.cpp "$out"/*.h "$out"/*.json
