#!/bin/bash
# Session 44, exp51's builds: attention.tile on sm_90a with the output copied from each thread
# (`--codegen=direct-stores`: the stores before this session) against the output staged through
# a per-warp shared scratch (tile-software-pipeline's stage-stores for a tma_regs ring, the new
# default), and the latter with the consumers' overlap or ping-pong, one namespace each, into one shared library of C launchers (<ns>_attention_fwd_launch)
# for exp51.py (which runs session 36's exp42.py on these builds).
# Usage: build-exp51.sh <tlc> <out-dir>
set -eu
source "$(dirname "$0")/attention-lib.sh"
dir=--codegen=direct-stores
build h_dir $dir                              # D 128 bf16: BM 128 on 8 warps, BN 128
build h_stg
build h_dirc -D CAUSAL=true $dir
build h_stgc -D CAUSAL=true
build d_dir -D T=f16 -D D=64 $dir             # D 64 f16: BM 192 on 12 warps (three warpgroups)
build d_stg -D T=f16 -D D=64
build d_dirc -D T=f16 -D D=64 -D CAUSAL=true $dir  # causal: BM 128 on 8 warps
build d_stgc -D T=f16 -D D=64 -D CAUSAL=true
# With the spills of the stores gone: session 35's overlap and session 36's ping-pong again.
ov=--codegen=overlap-register-rings
pp=--codegen=ping-pong-register-rings
build h_ov $ov
build h_ovc -D CAUSAL=true $ov
build h_pp $pp
build h_ppc -D CAUSAL=true $pp
build d_pp -D T=f16 -D D=64 $pp
link libexp51.so -O2
