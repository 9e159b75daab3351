#!/usr/bin/env bash
# gen-compile-check.sh TLC GEN WORKDIR FIRST_SEED FILES KERNELS_PER_FILE: compile-only robustness
# of tlc on random kernels. For each seed FIRST_SEED .. FIRST_SEED + FILES - 1, GEN
# (tlc-kernel-gen) writes WORKDIR/s<seed>.tile with KERNELS_PER_FILE kernels, and TLC compiles it
# for `--arch sm_90a --arch sm_80`, then again with `--codegen=reference` (where `tlc --help`
# lists --codegen). Each compile must either succeed or exit 1 with a located error
# (`<file>:<line>:<col>: error:`). It fails (exit 1, printing the seed, the command and the
# stderr) when tlc crashes (a signal, an exit status other than 0 and 1), hangs (120 s),
# exits 1 without a located error, or prints internal text (LLVM ERROR, assertions, stack
# dumps, legalization failures, MLIR verifier messages, ...).
#
# A file that fails with located errors is split: each kernel is regenerated alone
# (`--first i --kernels 1`, the same kernel) and compiled, so that the summary counts kernels:
#   files, kernels, compiled (both code generators), located errors.
# Files go in WORKDIR; those of failures are kept. TLC_GEN_JOBS (default 1) seeds run at once.
set -u -o pipefail
export LC_ALL=C

# Internal text: never part of a user diagnostic. tlc's own errors may say "must be" ("'clear'
# must be a compile-time bool"); only the MLIR verifier's form ("'tile.copy' op ... must be")
# counts.
internal="LLVM ERROR|Assertion|Stack dump|failed to legalize|op result #|PLEASE submit|UNREACHABLE"
internal+="|error: '(llvm|gpu|tile|nvvm|arith|scf|memref|cf|func|builtin)\\."
internal+="|'[a-z_]+\\.[a-z_.]+' op .*must be|internal error"

# compile FILE PREFIX [FLAG...]: sets `verdict` (ok, located, or a problem) and `cmd`.
compile() {
  local file=$1 prefix=$2
  shift 2
  cmd="$tlc $file --arch sm_90a --arch sm_80${*:+ $*} -o $prefix"
  timeout 120 "$tlc" "$file" --arch sm_90a --arch sm_80 "$@" -o "$prefix" \
    >"$prefix.out" 2>"$prefix.err"
  local status=$?
  local located='(^|'$'\n'')'"$file"':[0-9]+:[0-9]+: error: '
  local err
  err=$(<"$prefix.err")
  if [[ $status -eq 124 ]]; then
    verdict="timed out after 120 s"
  elif [[ $status -eq 126 || $status -eq 127 ]]; then
    verdict="could not run tlc (exit status $status)"
  elif [[ $status -ne 0 && $status -ne 1 ]]; then
    verdict="exit status $status (crash?)"
  elif grep -Eq "$internal" "$prefix.err" "$prefix.out"; then
    verdict="internal message (exit status $status)"
  elif [[ $status -eq 1 ]] && ! [[ "$err" =~ $located ]]; then
    verdict="exit status 1 without a located error"
  elif [[ $status -eq 1 ]]; then
    verdict=located
  else
    verdict=ok
  fi
  if [[ $verdict == ok || $verdict == located ]]; then
    rm -f "$prefix".*
  fi
}

# check FILE PREFIX: both code generators; sets `result` to ok, located or FAIL and prints
# the failure.
check() {
  local file=$1 prefix=$2 flags
  result=ok
  for flags in "" "--codegen=reference"; do
    [[ -n "$flags" && $reference -eq 0 ]] && continue
    # shellcheck disable=SC2086
    compile "$file" "$prefix" $flags
    case $verdict in
    ok) ;;
    located) result=located ;;
    *)
      result=FAIL
      echo "FAIL seed $seed: $verdict"
      echo "  command: $cmd"
      sed -n '1,40p' "$prefix.err" | sed 's/^/  | /'
      return
      ;;
    esac
  done
}

# Worker: --seed TLC GEN WORKDIR KERNELS REFERENCE SEED prints `RESULT <kernels> <compiled>
# <located> <failed>` and the failures of one seed.
if [[ "${1:-}" == "--seed" ]]; then
  tlc=$2 gen=$3 work=$4 kernels=$5 reference=$6 seed=$7
  file=$work/s$seed.tile
  if ! "$gen" --seed "$seed" --kernels "$kernels" >"$file"; then
    echo "FAIL seed $seed: $gen --seed $seed --kernels $kernels failed"
    echo "RESULT $kernels 0 0 1"
    exit 0
  fi
  check "$file" "$work/out_s$seed"
  if [[ $result == ok ]]; then
    rm -f "$file"
    echo "RESULT $kernels $kernels 0 0"
    exit 0
  fi
  if [[ $kernels -eq 1 ]]; then
    [[ $result == located ]] && echo "RESULT 1 0 1 0" || echo "RESULT 1 0 0 1"
    exit 0
  fi
  # Which kernels: each alone (the same kernel: k<i> depends on the seed and i only).
  whole=$result compiled=0 located=0 failed=0
  for ((i = 0; i < kernels; i++)); do
    one=$work/s${seed}_k$i.tile
    "$gen" --seed "$seed" --first "$i" --kernels 1 >"$one"
    check "$one" "$work/out_s${seed}_k$i"
    case $result in
    ok)
      compiled=$((compiled + 1))
      rm -f "$one"
      ;;
    located) located=$((located + 1)) ;;
    FAIL) failed=$((failed + 1)) ;;
    esac
  done
  if [[ $whole == FAIL && $failed -eq 0 ]]; then
    echo "FAIL seed $seed: the file fails but each of its kernels alone does not"
    failed=1
  fi
  echo "RESULT $kernels $compiled $located $failed"
  exit 0
fi

if [[ $# -ne 6 ]]; then
  echo "usage: $0 TLC TLC-KERNEL-GEN WORKDIR FIRST_SEED FILES KERNELS_PER_FILE" >&2
  exit 2
fi
tlc=$1 gen=$2 work=$3 first=$4 files=$5 kernels=$6
jobs=${TLC_GEN_JOBS:-1}
mkdir -p "$work" || exit 2
reference=0
"$tlc" --help 2>/dev/null | grep -q -- '--codegen' && reference=1

log=$work/results.log
seq "$first" $((first + files - 1)) |
  xargs -P "$jobs" -I{} "$BASH" "$0" --seed "$tlc" "$gen" "$work" "$kernels" "$reference" {} \
    >"$log"
grep -v '^RESULT ' "$log"
read -r total compiled located failed < <(awk '/^RESULT / { k += $2; c += $3; l += $4; f += $5 }
  END { print k + 0, c + 0, l + 0, f + 0 }' "$log")
codegens="default"
[[ $reference -eq 1 ]] && codegens="default and reference"
echo "gen-compile-check: $files files, $total kernels (seeds $first..$((first + files - 1)));" \
  "compiled ($codegens): $compiled, located errors: $located, failures: $failed"
if grep -q '^FAIL ' "$log"; then
  echo "FAIL: tlc crashed, hung or printed internal text; files kept in $work"
  exit 1
fi
exit 0
