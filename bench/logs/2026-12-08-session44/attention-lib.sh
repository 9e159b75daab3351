# Session 44: what build-exp51.sh, build-exp53.sh and build-exp54.sh share (sourced, after
# `set -eu`; arguments <tlc> <out-dir>): `build NAME TLC-ARGS...` compiles kernels/attention.tile
# for sm_90a into namespace NAME (plus ATTENTION_ARGS, default none); `link LIB [G++ FLAGS]`
# links every launcher in the output directory with the runtime into LIB, a shared library of
# C launchers (<ns>_attention_fwd_launch) for exp42.py's runners.
tlc=$1
out=$2
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
mkdir -p "$out"
build() { # name, tlc arguments...
  local name=$1
  shift
  "$tlc" "$root/kernels/attention.tile" --arch sm_90a --namespace "$name" -o "$out/$name" \
    ${ATTENTION_ARGS:-} "$@"
  test -f "$out/$name.cpp"
}
link() { # library name, g++ flags...
  local lib=$1
  shift
  g++ "$@" -shared -fPIC -std=c++17 -I "$root/include" -I /usr/local/cuda/include "$out"/*.cpp \
    "$root/lib/Runtime/Runtime.cpp" -L /usr/local/cuda/targets/x86_64-linux/lib/stubs -lcuda \
    -o "$out/$lib"
}
