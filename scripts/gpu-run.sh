#!/usr/bin/env bash
# Runs the prebuilt GPU tests and benchmarks on the GPU machine. Usage (from the repository root): scripts/gpu-run.sh [bin-dir]
#
# bin-dir (default build/gpu-bin) holds the *_test programs and bench_* programs. A test passes with exit
# code 0, is skipped with 77 and fails otherwise. After the benchmarks, ../shared/bench/peers.py --copy
# measures the copy roofline in the same run, when that script exists. All output also goes to
# $OUT/gpu-run.log when $OUT is set. Exits 1 when a test or a benchmark failed, 2 on bad usage.
set -u

bindir=${1:-build/gpu-bin}

run_all() {
  local failed=0 passed=0 skipped=0 bench_failed=0 rc name prog
  local -a failures=()

  echo "gpu-run: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(hostname), binaries from $bindir"
  if git rev-parse --short HEAD >/dev/null 2>&1; then
    echo "gpu-run: commit $(git rev-parse --short HEAD)$(git diff --quiet 2>/dev/null || echo ' (modified)')"
  fi
  if [ ! -d "$bindir" ]; then
    echo "gpu-run: no directory $bindir" >&2
    return 2
  fi

  echo "== nvidia-smi -L"
  if command -v nvidia-smi >/dev/null 2>&1; then
    nvidia-smi -L
  else
    echo "nvidia-smi not found"
  fi

  shopt -s nullglob
  local tests=("$bindir"/*_test)
  local benches=("$bindir"/bench_*)
  shopt -u nullglob
  if [ ${#tests[@]} -eq 0 ]; then
    echo "gpu-run: no *_test programs in $bindir" >&2
    return 2
  fi

  for prog in "${tests[@]}"; do
    if [ ! -f "$prog" ] || [ ! -x "$prog" ]; then
      continue
    fi
    name=$(basename "$prog")
    echo "== $name"
    timeout 900 "$prog"
    rc=$?
    case $rc in
      0) echo "-- $name: PASS"; passed=$((passed + 1)) ;;
      77) echo "-- $name: SKIP"; skipped=$((skipped + 1)) ;;
      *)
        [ $rc -eq 124 ] && echo "-- $name: timed out"
        [ $rc -eq 127 ] && echo "-- $name: could not start (is libcuda.so.1 installed?)"
        echo "-- $name: FAIL (exit $rc)"
        failed=$((failed + 1))
        failures+=("$name")
        ;;
    esac
  done

  for prog in "${benches[@]}"; do
    if [ ! -f "$prog" ] || [ ! -x "$prog" ]; then
      continue
    fi
    name=$(basename "$prog")
    echo "== $name"
    timeout 900 "$prog"
    rc=$?
    case $rc in
      0) echo "-- $name: done" ;;
      77) echo "-- $name: SKIP" ;;
      *)
        echo "-- $name: FAIL (exit $rc)"
        bench_failed=$((bench_failed + 1))
        failures+=("$name")
        ;;
    esac
  done

  local peers=""
  if [ -f shared/bench/peers.py ]; then
    peers=shared/bench/peers.py
  elif [ -f ../shared/bench/peers.py ]; then
    peers=../shared/bench/peers.py
  fi
  if [ -n "$peers" ]; then
    # PEERS_ARGS (default --copy) says what peers.py measures: e.g. --gemm 4096x4096x4096.
    echo "== python3 $peers ${PEERS_ARGS:---copy}"
    # shellcheck disable=SC2086
    timeout 900 python3 "$peers" ${PEERS_ARGS:---copy}
    rc=$?
    # The peers are a baseline, not a test: report their failure without failing the run.
    [ $rc -ne 0 ] && echo "-- peers: exit $rc (not counted as a failure)"
  else
    echo "== peers: shared/bench/peers.py not found; no copy roofline from peers"
  fi

  echo "== summary"
  echo "gpu-run: tests: $passed passed, $failed failed, $skipped skipped; benchmarks failed: $bench_failed"
  if [ ${#failures[@]} -gt 0 ]; then
    echo "gpu-run: FAILED: ${failures[*]}"
    return 1
  fi
  echo "gpu-run: OK"
  return 0
}

if [ -n "${OUT:-}" ]; then
  mkdir -p "$OUT"
  run_all 2>&1 | tee "$OUT/gpu-run.log"
  exit "${PIPESTATUS[0]}"
fi
run_all
