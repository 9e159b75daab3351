#!/usr/bin/env bash
# pass-orders.sh TLC TLC_OPT WORKDIR SEQUENCES KERNEL.tile...: "tlc-opt never crashes, whatever
# passes it runs in whatever order" (issue 11). Each kernel file is lowered to the tile dialect
# (`tlc --emit=tile`); then SEQUENCES pass sequences per file, drawn with a fixed seed from the
# tile passes, the conversion and the passes after it (scf to cf, gpu to NVVM, shared memory,
# grid constants), canonicalize/cse and tile-set-target with varying architectures
# (missing, repeated, out of order, targets changed midway), run through TLC_OPT. Each run must
# exit 0 or 1 with located errors only: no signal, no assertion, no LLVM/MLIR crash text.
# The sequences that crashed before the passes checked their preconditions (assign, pipeline,
# conversion without tile-shared-memory-layout; wgmma chosen for sm_90a, converted for sm_80)
# are always among them, and tlc's own order with the register rings and waits (rings, waits)
# written out, wgmma waits placed (mmawaits), TMA rings warp-specialized (warpspec) and their
# consumers taking turns (pingpong), out of order and twice.
set -u -o pipefail
tlc=$1 opt=$2 work=$3 count=$4
shift 4
mkdir -p "$work"
internal="PLEASE submit|Assertion|LLVM ERROR|UNREACHABLE|Stack dump"
passes=(widen assign blocked partition pipeline layout omitlayout rings waits mmawaits warpspec pingpong explain convert
        omitconvert float8 scfcf nvvm unify gridconst merge canon cse target90 target80 target75 none)
step() {
  case $1 in
  widen) echo "tile.kernel(tile-widen-gemm-operands)" ;;
  assign) echo "tile.kernel(tile-assign-mma-layouts)" ;;
  partition) echo "tile.kernel(tile-partition-threads)" ;;
  pipeline) echo "tile.kernel(tile-software-pipeline)" ;;
  layout) echo "tile.kernel(tile-shared-memory-layout)" ;;
  omitlayout) echo "tile.kernel(tile-shared-memory-layout{omit-unfit-variants=true})" ;;
  rings) echo "tile.kernel(tile-pipeline-register-rings)" ;;
  waits) echo "tile.kernel(tile-place-async-waits)" ;;
  mmawaits) echo "tile.kernel(tile-place-mma-waits)" ;;
  warpspec) echo "tile.kernel(tile-warp-specialize)" ;;
  pingpong) echo "tile.kernel(tile-ping-pong)" ;;
  blocked) echo "tile.kernel(tile-assign-blocked-layouts)" ;;
  explain) echo "tile.kernel(tile-explain)" ;;
  convert) echo "convert-tile-to-nvvm" ;;
  omitconvert) echo "convert-tile-to-nvvm{omit-unfit-variants=true}" ;;
  scfcf) echo "tlc-scf-to-cf" ;;
  nvvm) echo "gpu.module(tlc-gpu-to-nvvm)" ;;
  unify) echo "gpu.module(tlc-unify-dynamic-shared-memory)" ;;
  gridconst) echo "gpu.module(llvm.func(tlc-mark-grid-constants))" ;;
  merge) echo "gpu.module(llvm.func(tlc-merge-identical-blocks))" ;;
  float8) echo "tlc-expand-float8" ;;
  canon) echo "canonicalize" ;;
  cse) echo "cse" ;;
  target90) echo "tile-set-target{arch=sm_90a}" ;;
  target80) echo "tile-set-target{arch=sm_80}" ;;
  target75) echo "tile-set-target{arch=sm_75}" ;;
  esac
}
fixed=("target80 widen assign partition pipeline layout rings waits convert" "widen target80"
       "target80 widen assign partition pipeline omitlayout rings waits omitconvert"
       "target80 widen assign partition pipeline omitlayout rings waits convert"
       "target80 widen assign partition pipeline omitlayout target90 omitconvert"
       "target90 widen assign blocked partition pipeline layout rings waits mmawaits convert float8 scfcf nvvm unify gridconst canon merge cse"
       "target90 convert nvvm" "target90 assign blocked partition pipeline layout convert nvvm scfcf nvvm"
       "target90 widen widen assign partition pipeline layout rings waits mmawaits warpspec convert"
       "target90 assign partition pipeline warpspec layout warpspec convert"
       "target90 widen assign blocked partition pipeline layout rings waits mmawaits warpspec pingpong convert"
       "target90 assign partition pipeline layout rings waits mmawaits pingpong warpspec pingpong pingpong convert"
       "target90 assign partition pipeline layout warpspec warpspec layout convert"
       "target90 assign partition pipeline layout warpspec target80 convert"
       "target90 assign widen pipeline convert" "target90 assign pipeline convert" "target90 assign pipeline target80 layout convert"
       "target90 assign partition pipeline layout target80 convert"
       "target80 assign pipeline convert" "assign target90 layout convert"
       "target90 assign assign" "target90 partition assign pipeline layout convert"
       "target90 assign partition pipeline layout convert"
       "target90 assign partition pipeline layout rings waits mmawaits convert"
       "target90 assign partition pipeline layout rings waits convert"
       "target90 assign mmawaits partition pipeline layout rings waits mmawaits convert"
       "target80 assign partition pipeline rings waits layout convert"
       "target90 assign partition pipeline layout waits rings convert"
       "target90 assign partition pipeline layout rings rings waits waits convert")
RANDOM=20261201
runs=0 bad=0
for kernel in "$@"; do
  name=$(basename "$kernel" .tile)
  input=$work/$name.mlir
  if ! "$tlc" "$kernel" --emit=tile -o "$input" 2>"$work/$name.err"; then
    echo "FAIL: tlc --emit=tile $kernel"; cat "$work/$name.err"; exit 1
  fi
  sequences=("${fixed[@]}")
  for ((i = 0; i < count; i++)); do
    seq=""
    for ((j = 0; j < 2 + RANDOM % 5; j++)); do seq+="${passes[RANDOM % ${#passes[@]}]} "; done
    # Mostly with a target first, as tlc runs them.
    ((RANDOM % 4 != 0)) && seq="target90 $seq"
    sequences+=("$seq")
  done
  for seq in "${sequences[@]}"; do
    pipeline=""
    for p in $seq; do
      [[ $p == none ]] && continue
      pipeline+="${pipeline:+,}$(step "$p")"
    done
    runs=$((runs + 1))
    timeout 60 "$opt" "$input" --pass-pipeline="builtin.module($pipeline)" -o "$work/out.mlir" \
      >"$work/run.out" 2>"$work/run.err"
    status=$?
    if [[ $status -gt 1 ]] || grep -qE "$internal" "$work/run.err"; then
      bad=$((bad + 1))
      echo "FAIL ($status): $opt $input --pass-pipeline='builtin.module($pipeline)'"
      head -5 "$work/run.err"
    elif [[ $status -eq 1 ]] && ! grep -qE "^$input:[0-9]+:[0-9]+: error: |^loc\(" "$work/run.err" &&
      ! grep -qE ":[0-9]+:[0-9]+: error: " "$work/run.err"; then
      bad=$((bad + 1))
      echo "FAIL (unlocated error): $opt $input --pass-pipeline='builtin.module($pipeline)'"
      head -5 "$work/run.err"
    fi
  done
done
echo "pass orders: $runs runs, $bad failures"
[[ $bad -eq 0 ]]
