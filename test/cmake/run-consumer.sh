#!/usr/bin/env bash
# Builds test/cmake/consumer against tlc the two ways an application can use it, and checks what
# add_tile_kernel produced and that it rebuilds when it should. Needs no GPU (nothing is run).
#
#   run-consumer.sh install      <tlc build dir> <tlc source dir> <work dir> <install prefix>
#       cmake --install <tlc build dir> --prefix <install prefix>, then find_package(tlc).
#   run-consumer.sh subdirectory <tlc build dir> <tlc source dir> <work dir>
#       add_subdirectory(<tlc source dir>): tlc is built again inside the consumer's build.
#
# Environment: CMAKE (cmake to use), TLC_GENERATOR (default Ninja), CMAKE_MAKE_PROGRAM, CC, CXX,
# TLC_CONSUMER_KEEP=1 keeps a previous build of the consumer (default: start from scratch).
# Exits 0 when every check passed, 1 otherwise.
set -euo pipefail

mode=${1:?usage: run-consumer.sh install|subdirectory <build> <source> <work> [prefix]}
tlc_build=${2:?tlc build dir}
tlc_source=${3:?tlc source dir}
work=${4:?work dir}
prefix=${5:-$work/prefix}
cmake=${CMAKE:-cmake}
generator=${TLC_GENERATOR:-Ninja}

failures=0
started=$SECONDS
step() { echo "== [$((SECONDS - started))s] $*"; }
check() { # check <description> <command...>
  local what=$1
  shift
  if "$@"; then
    echo "ok: $what"
  else
    echo "FAIL: $what"
    failures=$((failures + 1))
  fi
}
contains() { grep -q -F -- "$2" "$1"; }
lacks() { ! grep -q -F -- "$2" "$1"; }

src=$work/src
build=$work/build
if [ "${TLC_CONSUMER_KEEP:-0}" != 1 ]; then
  rm -rf "$build"
fi
rm -rf "$src"
mkdir -p "$work"
# A copy, so that the checks below can touch its files.
cp -R "$tlc_source/test/cmake/consumer" "$src"

configure_args=(-G "$generator" -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release)
[ -n "${CMAKE_MAKE_PROGRAM:-}" ] && configure_args+=("-DCMAKE_MAKE_PROGRAM=$CMAKE_MAKE_PROGRAM")
[ -n "${CC:-}" ] && configure_args+=("-DCMAKE_C_COMPILER=$CC")
[ -n "${CXX:-}" ] && configure_args+=("-DCMAKE_CXX_COMPILER=$CXX")

case $mode in
  install)
    step "cmake --install $tlc_build --prefix $prefix"
    rm -rf "$prefix"
    "$cmake" --install "$tlc_build" --prefix "$prefix"
    for f in bin/tlc lib/libtlcRuntime.a include/tlc/Runtime/Runtime.h \
             lib/cmake/tlc/tlcConfig.cmake lib/cmake/tlc/tlcConfigVersion.cmake \
             lib/cmake/tlc/tlcTargets.cmake lib/cmake/tlc/AddTileKernel.cmake; do
      check "installed $f" test -f "$prefix/$f"
    done
    # Only tlc's own files: no LLVM/MLIR libraries or headers, no build paths in the package.
    check "nothing else installed" \
      test "$(cd "$prefix" && find . -type f | grep -v -E '^\./(bin/tlc|lib/libtlcRuntime\.a|include/tlc/Runtime/Runtime\.h|lib/cmake/tlc/[A-Za-z_-]+\.cmake)$' | wc -l)" = 0
    check "the package names no build or source directory" \
      bash -c "! grep -r -l -F -e '$tlc_build' -e '$tlc_source/' '$prefix/lib/cmake/tlc'"
    check "installed tlc runs" "$prefix/bin/tlc" --version
    configure_args+=("-DCMAKE_PREFIX_PATH=$prefix")
    ;;
  subdirectory)
    configure_args+=("-DTLC_CONSUMER_TLC_SOURCE=$tlc_source")
    ;;
  *)
    echo "run-consumer.sh: unknown mode '$mode'" >&2
    exit 2
    ;;
esac

step "configure the consumer ($mode)"
"$cmake" "${configure_args[@]}"

step "build the consumer"
"$cmake" --build "$build" | tee "$work/build-1.log"

gen_ops=$build/tile_kernels/consumer_ops
gen_copy=$build/generated/copy
for stem in axpy matrix_ops; do
  for ext in h cpp fatbin json; do
    check "generated $stem.$ext" test -s "$gen_ops/$stem.$ext"
  done
done
for ext in h cpp fatbin json; do
  check "generated copy.$ext (OUTPUT_DIR)" test -s "$gen_copy/copy.$ext"
done
check "consumer_app linked" test -x "$build/consumer_app"
check "NAMESPACE: consumer::axpy" contains "$gen_ops/axpy.h" "namespace consumer::axpy {"
check "NAMESPACE: consumer::matrix_ops" contains "$gen_ops/matrix_ops.h" "namespace consumer::matrix_ops {"
check "default namespace tlc::copy" contains "$gen_copy/copy.h" "namespace tlc::copy {"
check "ARCHS sm_90a 80 -> sm_90a, sm_80" \
  contains "$gen_ops/axpy.json" "$(printf '"archs": [\n    "sm_90a",\n    "sm_80"\n  ]')"
check "CMAKE_CUDA_ARCHITECTURES 90a;80-real -> sm_90a, sm_80" \
  contains "$gen_copy/copy.json" "$(printf '"archs": [\n    "sm_90a",\n    "sm_80"\n  ]')"
check "DEFINES BLOCK=512 (axpy)" contains "$gen_ops/axpy.json" '"BLOCK": 512'
check "DEFINES BLOCK=512 (matrix_ops)" contains "$gen_ops/matrix_ops.json" '"BLOCK": 512'
check "the grid uses BLOCK=512" contains "$gen_ops/axpy.h" "tlc::rt::ceilDiv(N, 512)"
check "target property TLC_ARCHS" contains "$build/consumer-expect.txt" "copy_archs=sm_90a;sm_80"
tlc_exe=$(cat "$build/consumer-tlc-path.txt")
check "tlc info lists the sm_90a cubin" \
  bash -c "'$tlc_exe' info '$gen_ops/axpy.fatbin' | grep -q 'ELF  sm_90a'"
check "OPTIONS --ptx-only: copy.fatbin holds PTX alone" \
  bash -c "'$tlc_exe' info '$gen_copy/copy.fatbin' | grep -q 'PTX  compute_90a' && ! '$tlc_exe' info '$gen_copy/copy.fatbin' | grep -q ELF"

# The same add_tile_kernel either way: configured (quickly) against the installed package only.
bad_options=()
if [ "$mode" = install ]; then
  bad_options=(--output=x -DBLOCK=1 --arch=sm_80 4)
  step "configure with OPTIONS add_tile_kernel refuses"
fi
for bad in "${bad_options[@]}"; do
  rm -rf "$work/bad"
  if "$cmake" "${configure_args[@]/#$build/$work/bad}" "-DTLC_CONSUMER_BAD_OPTION=$bad" \
      > "$work/bad.log" 2>&1; then
    check "OPTIONS $bad refused" false
  else
    check "OPTIONS $bad refused" contains "$work/bad.log" "OPTIONS entry '$bad'"
  fi
done

if [ "$generator" = Ninja ]; then
  step "rebuild without changes"
  "$cmake" --build "$build" | tee "$work/build-2.log"
  check "nothing to do" contains "$work/build-2.log" "no work to do"
fi

step "rebuild after touching kernels/axpy.tile"
sleep 1
touch "$src/kernels/axpy.tile"
"$cmake" --build "$build" | tee "$work/build-3.log"
check "tlc reran for axpy.tile" contains "$work/build-3.log" "tlc kernels/axpy.tile"
check "tlc did not rerun for matrix_ops.tile" lacks "$work/build-3.log" "tlc kernels/matrix_ops.tile"
check "tlc did not rerun for copy.tile" lacks "$work/build-3.log" "tlc kernels/copy.tile"
check "consumer_app relinked" contains "$work/build-3.log" "consumer_app"

step "rebuild after touching the tlc executable ($tlc_exe)"
sleep 1
touch "$tlc_exe"
"$cmake" --build "$build" | tee "$work/build-4.log"
for f in axpy matrix_ops copy; do
  check "tlc reran for $f.tile" contains "$work/build-4.log" "tlc kernels/$f.tile"
done

step "done: $failures failed checks"
[ "$failures" -eq 0 ]
