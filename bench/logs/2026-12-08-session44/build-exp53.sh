#!/bin/bash
# Session 44, exp53's builds: attention.tile on sm_90a with the consumers' ping-pong or overlap,
# each with the output staged (the default) and with each thread's own stores (direct-stores),
# now that --codegen takes a list; one namespace each, into one shared library of C launchers
# for exp53.py. Were ping-pong and the overlap slowed by the staged output (run 28)?
# Usage: build-exp53.sh <tlc> <out-dir>
set -eu
source "$(dirname "$0")/attention-lib.sh"
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
link libexp53.so -O2
rm -f "$out"/*.cpp "$out"/*.h "$out"/*.json
