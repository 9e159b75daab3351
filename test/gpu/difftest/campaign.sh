#!/usr/bin/env bash
# A differential campaign over random kernels (issue 17), in two halves:
#
#   campaign.sh build <tlc> <tlc-kernel-gen> <dir> <first-seed> <files> <kernels-per-file>
#     (no GPU needed) writes <dir>/s<seed>.tile with random kernels and compiles each file twice
#     for sm_90a: <dir>/s<seed>.{fatbin,json} (the normal code generation) and
#     <dir>/s<seed>_ref.{fatbin,json} (--codegen=reference). A file with a kernel that does not
#     compile is rebuilt from the kernels that do (each regenerated alone); the kernels left out
#     are counted (gen-compile-check.sh checks that such errors are located, not crashes).
#     The fatbins carry PTX only (--ptx-only): ptxas is most of a compile on this 2-core machine,
#     and the GPU machine's driver compiles the PTX on its many cores when the runner loads it.
#     CAMPAIGN_JOBS (default 2) files at once; CAMPAIGN_TLC_ARGS (unquoted) are added to the
#     normal build (e.g. --codegen=mma-sync).
#   campaign.sh run <tlc-difftest> <dir> [jobs] [tlc-difftest arguments...]
#     (on a GPU) runs every file's kernels fast vs. reference (4 cases each: sizes 1, 3, a tile
#     multiple and a ragged one), `jobs` processes at once (default 4); prints each disagreement
#     with its reproducer and a summary; exit 1 on any disagreement.
set -u -o pipefail
mode=$1
shift

build_one() {
  local seed=$1 tlc=$2 gen=$3 dir=$4 per=$5
  local base=$dir/s$seed
  "$gen" --seed "$seed" --kernels "$per" > "$base.tile" || return 1
  if ! { timeout 300 "$tlc" "$base.tile" --arch sm_90a --ptx-only ${CAMPAIGN_TLC_ARGS:-} -o "$base" &&
         timeout 300 "$tlc" "$base.tile" --arch sm_90a --ptx-only --codegen=reference -o "${base}_ref"; } \
       > "$base.log" 2>&1; then
    # Keep the kernels that compile both ways.
    : > "$base.kept.tile"
    local kept=0 i
    for ((i = 0; i < per; ++i)); do
      "$gen" --seed "$seed" --first "$i" --kernels 1 > "$base.one.tile"
      if timeout 300 "$tlc" "$base.one.tile" --arch sm_90a ${CAMPAIGN_TLC_ARGS:-} --emit=ptx -o "$base.one.ptx" \
           > /dev/null 2>&1 &&
         timeout 300 "$tlc" "$base.one.tile" --arch sm_90a --codegen=reference --emit=ptx \
           -o "$base.one.ptx" > /dev/null 2>&1; then
        cat "$base.one.tile" >> "$base.kept.tile"
        kept=$((kept + 1))
      fi
    done
    rm -f "$base.one.tile" "$base.one.ptx"
    echo "s$seed: kept $kept of $per kernels" >> "$base.log"
    mv "$base.kept.tile" "$base.tile"
    [ "$kept" -gt 0 ] || return 0
    timeout 300 "$tlc" "$base.tile" --arch sm_90a --ptx-only ${CAMPAIGN_TLC_ARGS:-} -o "$base" >> "$base.log" 2>&1 &&
      timeout 300 "$tlc" "$base.tile" --arch sm_90a --ptx-only --codegen=reference -o "${base}_ref" \
        >> "$base.log" 2>&1 || return 1
  fi
  rm -f "$base.h" "$base.cpp" "${base}_ref.h" "${base}_ref.cpp"
}

case $mode in
build)
  tlc=$1 gen=$2 dir=$3 first=$4 files=$5 per=$6
  mkdir -p "$dir"
  export -f build_one
  seq "$first" $((first + files - 1)) |
    xargs -P "${CAMPAIGN_JOBS:-2}" -I{} bash -c 'build_one "$@"' _ {} "$tlc" "$gen" "$dir" "$per"
  built=$(ls "$dir"/s*_ref.json 2>/dev/null | wc -l)
  kernels=$(grep -h -c '^kernel ' "$dir"/s*.tile | awk '{s += $1} END {print s + 0}')
  echo "campaign build: $files files, $built compiled both ways, $kernels kernels"
  ;;
run)
  difftest=$1 dir=$2 jobs=${3:-4}
  shift 2
  [ $# -gt 0 ] && shift
  run_one() {
    local ref=$1 difftest=$2 dir=$3
    shift 3
    local base=${ref%_ref.json}
    "$difftest" --fast "$base.fatbin" --fast-manifest "$base.json" --ref "${ref%.json}.fatbin" \
      --ref-manifest "$ref" --cases 4 --seed "${base##*/s}" "$@" > "$base.diff" 2>&1
    local rc=$?
    [ $rc -ne 0 ] && { echo "== $(basename "$base") exit $rc"; grep -E "FAIL|FATAL|reproduce|error" "$base.diff" | head -20; }
    return 0
  }
  export -f run_one
  ls "$dir"/s*_ref.json | xargs -P "$jobs" -I{} bash -c 'run_one "$@"' _ {} "$difftest" "$dir" "$@"
  if grep -q '^SKIP' "$dir"/s*.diff; then
    grep -h '^SKIP' "$dir"/s*.diff | head -1
    exit 77
  fi
  cat "$dir"/s*.diff | grep '^difftest: .* kernels, ' |
    awk '{k += $2; e += $4; c += $6; f += $8} END {printf "campaign: %d kernels, %d entries, %d cases, %d failures\n", k, e, c, f; exit f > 0}'
  ;;
*)
  echo "usage: campaign.sh build|run ..." >&2
  exit 2
  ;;
esac
