#!/usr/bin/env bash
# Differential test of the bundled and test kernels: run-kernels.sh <tlc-difftest> <difftest dir>
# [extra tlc-difftest arguments]. For every <dir>/ref/<name>.json, runs <dir>/fast/<name> (sm_90a)
# <dir>/sm_80/<name> (sm_80 PTX, JIT-compiled by the driver), <dir>/mma_sync/<name> (sm_90a
# with --codegen=mma-sync) and <dir>/register/<name> (sm_90a with --codegen=register: every
# kernel on the per-op register strategy) against the reference build on random inputs (8 cases
# per kernel, sizes 1, 3, tile multiples and ragged ones). DIFFTEST_JOBS (default 4) comparisons
# run at once (the GPU has room; a full run is several minutes one at a time); their outputs are
# printed in order. Exit 0 when every case of every kernel agrees, 77 without a GPU.
set -u
difftest=$1
dir=$2
shift 2
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
run_one() {
  local job=$1 difftest=$2 dir=$3 out=$4
  shift 4
  local name=${job%:*} build=${job#*:}
  {
    echo "== $name ($build vs reference)"
    "$difftest" --fast "$dir/$build/$name.fatbin" --fast-manifest "$dir/$build/$name.json" \
      --ref "$dir/ref/$name.fatbin" --ref-manifest "$dir/ref/$name.json" --cases 8 "$@"
    echo "rc=$?" > "$out/$name.$build.rc"
  } > "$out/$name.$build.log" 2>&1
}
export -f run_one
jobs=()
for ref in "$dir"/ref/*.json; do
  name=$(basename "$ref" .json)
  for build in fast sm_80 mma_sync register; do
    [ -f "$dir/$build/$name.json" ] && jobs+=("$name:$build")
  done
done
printf '%s\n' "${jobs[@]}" |
  xargs -P "${DIFFTEST_JOBS:-4}" -I{} bash -c 'run_one "$@"' _ {} "$difftest" "$dir" "$out" "$@"
status=0
for job in "${jobs[@]}"; do
  name=${job%:*} build=${job#*:}
  cat "$out/$name.$build.log"
  rc=$(sed -n 's/^rc=//p' "$out/$name.$build.rc" 2>/dev/null)
  [ "${rc:-1}" = 77 ] && exit 77
  [ "${rc:-1}" != 0 ] && status=1
done
echo "run-kernels: $([ $status -eq 0 ] && echo ALL AGREE || echo DISAGREEMENTS)"
exit $status
