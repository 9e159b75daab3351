#!/bin/bash
# Session 44, exp54's builds: attention.tile on sm_90a at D = 128 (BM 128 on 8 warps, the
# producer ring, the output staged) with key blocks of BN = 128 (shipped), 144, 160 and 176
# (FlashAttention-3's non-causal choice), full and causal: with the output staged none of
# them spills. One namespace each, into one shared library for exp54.py.
# Usage: build-exp54.sh <tlc> <out-dir>
set -eu
tlc=$1
out=$2
root=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
build() { # name, tlc arguments...
  local name=$1
  shift
  "$tlc" "$root/kernels/attention.tile" --arch sm_90a --namespace "$name" -o "$out/$name" -j 1 \
    -D BM=128 -D WARPS=8 "$@"
  test -f "$out/$name.cpp"
}
for bn in 128 144 160 176; do
  build h_$bn -D BN=$bn
  build h_${bn}c -D BN=$bn -D CAUSAL=true
done
g++ -O1 -shared -fPIC -std=c++17 -I "$root/include" -I /usr/local/cuda/include "$out"/*.cpp \
  "$root/lib/Runtime/Runtime.cpp" -L /usr/local/cuda/targets/x86_64-linux/lib/stubs -lcuda \
  -o "$out/libexp54.so"
rm -f "$out"/*.cpp "$out"/*.h "$out"/*.json
