#!/bin/bash
# Session 36, exp42's builds: attention.tile on sm_90a, serial consumers (the shipped schedule)
# against tile-ping-pong's turns (--codegen=ping-pong-register-rings), one namespace each, into
# one shared library of C launchers (<ns>_attention_fwd_launch) for exp42.py.
# Usage: build-exp42.sh <tlc> <out-dir>
set -eu
tlc=$1
out=$2
root=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
build() { # name, tlc arguments...
  local name=$1
  shift
  "$tlc" "$root/kernels/attention.tile" --arch sm_90a --namespace "$name" -o "$out/$name" "$@"
  test -f "$out/$name.cpp"
}
pp=--codegen=ping-pong-register-rings
build h_ser                                   # D 128 bf16: BM 128 on 8 warps, BN 128
build h_pp $pp
build h_serc -D CAUSAL=true
build h_ppc -D CAUSAL=true $pp
build d_ser -D T=f16 -D D=64                  # D 64 f16: BM 192 on 12 warps (three warpgroups)
build d_pp -D T=f16 -D D=64 $pp
build d_serc -D T=f16 -D D=64 -D CAUSAL=true  # causal: BM 128 on 8 warps
build d_ppc -D T=f16 -D D=64 -D CAUSAL=true $pp
build d_128pp -D T=f16 -D D=64 -D BM=128 -D WARPS=8 -D BN=128 $pp
g++ -O2 -shared -fPIC -std=c++17 -I "$root/include" -I /usr/local/cuda/include "$out"/*.cpp \
  "$root/lib/Runtime/Runtime.cpp" -L /usr/local/cuda/targets/x86_64-linux/lib/stubs -lcuda \
  -o "$out/libexp42.so"
