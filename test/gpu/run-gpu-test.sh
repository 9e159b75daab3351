#!/usr/bin/env sh
# Runs one GPU test program; exits 77 (skipped) where no CUDA driver is installed.
if ! { ldconfig -p 2>/dev/null | grep -q 'libcuda\.so\.1'; } && [ ! -e /usr/lib/x86_64-linux-gnu/libcuda.so.1 ]; then
  echo "SKIP: no CUDA driver (libcuda.so.1) on this machine"
  exit 77
fi
exec "$@"
