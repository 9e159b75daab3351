#!/usr/bin/env bash
# Bounded resources (issue 15): kernels of 16,000 statements lower through tlc's own stages
# (--emit=mlir) under a 2 GiB address-space limit. Before tlc-scf-to-cf, scf-to-cf split blocks
# first-to-last, O(n^2): 4,000 bounds-checked statements took 11 s and 3.4 GB, 16,000 ran out of
# memory. Usage: compile-time-linear.sh <tlc> <bench/compile-time.sh> <work dir>
set -u
tlc=$1
bench=$2
dir=$3
mkdir -p "$dir"
status=0
for shape in stores ifs; do
  "$bench" --generate $shape 16000 > "$dir/$shape.tile"
  start=$(date +%s)
  (ulimit -v 2097152 && "$tlc" "$dir/$shape.tile" --emit=mlir -o "$dir/$shape.mlir" -j 2)
  rc=$?
  echo "$shape, 16000 statements: exit $rc in $(($(date +%s) - start)) s"
  [ $rc -ne 0 ] && status=1
  grep -q "llvm.func" "$dir/$shape.mlir" 2> /dev/null || { echo "no LLVM dialect output"; status=1; }
  rm -f "$dir/$shape.mlir"
done
exit $status
