#!/usr/bin/env bash
# Compile time and peak memory of tlc against a kernel's statement count (issue 15: lowering
# linear in the kernel's length). Usage: bench/compile-time.sh <tlc> [counts...] [--ptx]
# Three shapes of N statements each: `stores` (N bounds-checked loads and stores at kernel
# level: 2N scf.if), `ifs` (N `if`s inside a `parallel`), `chain` (N arithmetic updates of one
# variable). For each: seconds and peak resident memory of `--emit=mlir` (tlc's own stages),
# and with --ptx of `--emit=ptx` (LLVM O3 and the NVPTX back end included).
# `bench/compile-time.sh --generate <shape> <N>` prints one such kernel (the compile-time.linear
# test, test/tlc/compile-time-linear.sh, compiles them under a memory limit).
set -eu
# Writes the kernel of shape $1 with $2 statements to stdout.
generate() {
  local shape=$1 n=$2 k
  case $shape in
  stores)
    echo "kernel many(X: tensor<f32>[N], Y: tensor<f32>[N]) grid(1) threads(32) {"
    for ((k = 1; k <= n; k++)); do echo "  Y[$k] = X[$k] * 2.0;"; done
    echo "}" ;;
  ifs)
    echo "kernel many(X: tensor<f32>[N], Y: tensor<f32>[N]) grid(cdiv(N, 256)) threads(256) {"
    echo "  parallel (i) in [256] {"
    echo "    let j = block.x * 256 + i;"
    for ((k = 1; k <= n; k++)); do echo "    if (X[j] > $k.0) { Y[j] = $k.0; }"; done
    echo "  }"
    echo "}" ;;
  chain)
    echo "kernel many(X: tensor<f32>[N], Y: tensor<f32>[N]) grid(cdiv(N, 256)) threads(256) {"
    echo "  parallel (i) in [256] {"
    echo "    let j = block.x * 256 + i;"
    echo "    var a = X[j];"
    for ((k = 1; k <= n; k++)); do echo "    a = a * 1.0001 + $k.0;"; done
    echo "    Y[j] = a;"
    echo "  }"
    echo "}" ;;
  esac
}

# Runs tlc on $1 with --emit=$2; prints "seconds peak-MiB" (peak from /proc via a poll of the
# child's VmHWM, so no /usr/bin/time is needed).
measure() {
  local file=$1 emit=$2 start end pid hwm=0 v
  start=$(date +%s%N)
  "$tlc" "$file" --emit="$emit" -o "$dir/out.$emit" -j 1 &
  pid=$!
  while kill -0 $pid 2> /dev/null; do
    v=$(awk '/VmHWM/ {print $2}' /proc/$pid/status 2> /dev/null || true)
    [ -n "$v" ] && [ "$v" -gt "$hwm" ] && hwm=$v
    sleep 0.05
  done
  wait $pid
  end=$(date +%s%N)
  local ms=$(((end - start) / 1000000))
  printf "%d.%02d %d\n" $((ms / 1000)) $((ms % 1000 / 10)) $((hwm / 1024))
}

if [ "$1" = --generate ]; then
  generate "$2" "$3"
  exit 0
fi
tlc=$1
shift
counts=()
ptx=0
for a in "$@"; do
  if [ "$a" = --ptx ]; then ptx=1; else counts+=("$a"); fi
done
[ ${#counts[@]} -eq 0 ] && counts=(1000 2000 4000 8000 16000)
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

printf "%-7s %7s %12s %10s" shape N "mlir s" "mlir MiB"
[ $ptx -eq 1 ] && printf " %10s %9s" "ptx s" "ptx MiB"
echo
for shape in stores ifs chain; do
  for n in "${counts[@]}"; do
    generate $shape "$n" > "$dir/k.tile"
    read -r s m < <(measure "$dir/k.tile" mlir)
    printf "%-7s %7d %12s %10d" $shape "$n" "$s" "$m"
    if [ $ptx -eq 1 ]; then
      read -r s m < <(measure "$dir/k.tile" ptx)
      printf " %10s %9d" "$s" "$m"
    fi
    echo
  done
done
