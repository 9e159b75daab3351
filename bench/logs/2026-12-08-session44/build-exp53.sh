#!/bin/bash
# Session 44, exp53's builds: attention.tile on sm_90a with the consumers' ping-pong or overlap,
# each with the output staged (the default) and with each thread's own stores (direct-stores),
# now that --codegen takes a list; one namespace each, into one shared library of C launchers
# for exp53.py. Were ping-pong and the overlap slowed by the staged output (run 28)?
# Usage: build-exp53.sh <tlc> <out-dir>
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
pp=ping-pong-register-rings
ov=overlap-register-rings
build h_stg                                   # D 128 bf16: BM 128 on 8 warps, BN 128
build h_pp --codegen=$pp
build h_ppd --codegen=$pp,direct-stores
build h_ov --codegen=$ov
build h_ovd --codegen=$ov,direct-stores
build h_stgc -D CAUSAL=true
build h_ppc -D CAUSAL=true --codegen=$pp
build h_ppdc -D CAUSAL=true --codegen=$pp,direct-stores
build d_stg -D T=f16 -D D=64                  # D 64 f16: BM 192 on 12 warps
build d_pp -D T=f16 -D D=64 --codegen=$pp
build d_ppd -D T=f16 -D D=64 --codegen=$pp,direct-stores
g++ -O2 -shared -fPIC -std=c++17 -I "$root/include" -I /usr/local/cuda/include "$out"/*.cpp \
  "$root/lib/Runtime/Runtime.cpp" -L /usr/local/cuda/targets/x86_64-linux/lib/stubs -lcuda \
  -o "$out/libexp53.so"
rm -f "$out"/*.cpp "$out"/*.h "$out"/*.json
