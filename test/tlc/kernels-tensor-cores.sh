#!/usr/bin/env bash
# Compositional code generation (issue 11): every gemm of every kernel in kernels/ runs on
# tensor cores for sm_90a and for sm_80, as tlc --explain reports it. A kernel whose source has
# a gemm must get a strategy remark per architecture naming tensor-core instructions for all of
# its gemms ("N of N gemms" where the register strategy counts them), and no remark or note
# may leave a gemm or the whole kernel without tensor cores. A kernel file with a line
# `// tlc-archs: sm_90a` (built for sm_90a alone, kernels/CMakeLists.txt) is checked for sm_90a.
# Usage: kernels-tensor-cores.sh <tlc> <kernels dir> <work dir>
set -euo pipefail
tlc=$1
kernels=$2
work=$3
mkdir -p "$work"
status=0
checked=0
for src in "$kernels"/*.tile; do
  name=$(basename "$src" .tile)
  grep -q '^[[:space:]]*gemm(' "$src" || continue
  out="$work/$name.explain"
  archs="sm_90a sm_80"
  grep -qx '// tlc-archs: sm_90a' "$src" && archs="sm_90a"
  arch_args=()
  for arch in $archs; do arch_args+=(--arch "$arch"); done
  if ! "$tlc" "$src" --explain "${arch_args[@]}" --emit=mlir -o "$work/$name.mlir" \
      >"$out" 2>&1; then
    echo "FAIL: $name: tlc failed"; cat "$out"; status=1; continue
  fi
  for arch in $archs; do
    remarks=$(grep -E "remark: kernel '[^']+' for $arch: " "$out" || true)
    if [ -z "$remarks" ]; then
      echo "FAIL: $name: no strategy remark for $arch"; status=1; continue
    fi
    while IFS= read -r line; do
      case "$line" in
      *"wgmma"* | *"mma.sync"*) ;;
      *) echo "FAIL: $name ($arch): no tensor-core instruction: $line"; status=1 ;;
      esac
      # "k of n gemms": every gemm of the kernel.
      if [[ "$line" =~ ([0-9]+)\ of\ ([0-9]+)\ gemm ]] &&
        [ "${BASH_REMATCH[1]}" != "${BASH_REMATCH[2]}" ]; then
        echo "FAIL: $name ($arch): not every gemm on tensor cores: $line"; status=1
      fi
    done <<<"$remarks"
  done
  if grep -nE "generic strategy|gemm keeps the generic|no tensor cores" "$out"; then
    echo "FAIL: $name: a gemm or kernel keeps the generic lowering"; status=1
  fi
  checked=$((checked + 1))
done
if [ "$checked" -lt 8 ]; then
  echo "FAIL: only $checked kernels with gemms found in $kernels"; status=1
fi
[ "$status" = 0 ] && echo "every gemm of $checked kernels runs on tensor cores (sm_90a, sm_80)"
exit $status
