#!/usr/bin/env bash
# Differential test of the bundled and test kernels: run-kernels.sh <tlc-difftest> <difftest dir>
# [extra tlc-difftest arguments]. For every <dir>/ref/<name>.json, runs <dir>/fast/<name> (sm_90a)
# <dir>/sm_80/<name> (sm_80 PTX, JIT-compiled by the driver), <dir>/mma_sync/<name> (sm_90a
# with --codegen=mma-sync) and <dir>/register/<name> (sm_90a with --codegen=register: every
# kernel on the per-op register strategy) against the reference build on random inputs (8 cases
# per kernel, sizes 1, 3, tile multiples and ragged ones). Exit 0 when every case of every kernel agrees, 77
# without a GPU.
set -u
difftest=$1
dir=$2
shift 2
status=0
for ref in "$dir"/ref/*.json; do
  name=$(basename "$ref" .json)
  for build in fast sm_80 mma_sync register; do
    [ -f "$dir/$build/$name.json" ] || continue
    echo "== $name ($build vs reference)"
    "$difftest" --fast "$dir/$build/$name.fatbin" --fast-manifest "$dir/$build/$name.json" \
      --ref "$dir/ref/$name.fatbin" --ref-manifest "$ref" --cases 8 "$@"
    rc=$?
    [ $rc -eq 77 ] && exit 77
    [ $rc -ne 0 ] && status=1
  done
done
echo "run-kernels: $([ $status -eq 0 ] && echo ALL AGREE || echo DISAGREEMENTS)"
exit $status
