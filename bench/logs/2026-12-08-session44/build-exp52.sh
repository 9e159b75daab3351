#!/bin/bash
# Session 44, exp52: session 34's exp40 (fp8_gemm_blockwise, two builds on the same tensors in one
# process: outputs compared bit for bit, then timed through launch() and through configuration 0)
# on fp8_gemm.tile built with tlc's defaults (f8new: configuration 0's k loop on a tma_regs ring
# now stages its output through shared memory) and with --codegen=direct-stores (f8old: each
# thread's own stores, as before this session). exp40.cpp names the namespaces tlc::f8new and
# tlc::f8old, which tlc's --namespace no longer prefixes with tlc::; the copy compiled here drops
# the prefix.
# Usage: build-exp52.sh <tlc> <build dir (for lib/Runtime/libtlcRuntime.a)> <out-dir>
set -eu
tlc=$1
build=$2
out=$3
root=$(cd "$(dirname "$0")/../../.." && pwd)
mkdir -p "$out"
"$tlc" "$root/kernels/fp8_gemm.tile" --arch sm_90a --namespace f8new -o "$out/f8new"
"$tlc" "$root/kernels/fp8_gemm.tile" --arch sm_90a --codegen=direct-stores --namespace f8old \
  -o "$out/f8old"
sed 's/tlc::f8new::/f8new::/g; s/tlc::f8old::/f8old::/g' \
  "$root/bench/logs/2026-12-06-session34/exp40.cpp" > "$out/exp52.cpp"
g++ -O2 -std=c++17 -I "$root/include" -I "$root/test/gpu" -I "$out" -I /usr/local/cuda/include \
  "$out/exp52.cpp" "$out/f8new.cpp" "$out/f8old.cpp" "$build/lib/Runtime/libtlcRuntime.a" \
  -L /usr/local/cuda/targets/x86_64-linux/lib/stubs -lcuda -o "$out/exp52"
