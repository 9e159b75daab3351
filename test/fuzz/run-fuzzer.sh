#!/usr/bin/env bash
# run-fuzzer.sh FUZZER SECONDS ARTIFACT_DIR SEED_DIR...: a bounded libFuzzer run, as the CTest
# test fuzz.frontend. The seed directories are copied to a temporary corpus (the repository's is
# never modified). Fails on any crash, leak, timeout (10 s an input), out-of-memory (4 GiB) or
# sanitizer report; the offending input is saved under ARTIFACT_DIR and the log's end printed.
set -u -o pipefail
if [[ $# -lt 4 ]]; then
  echo "usage: $0 FUZZER SECONDS ARTIFACT_DIR SEED_DIR..." >&2
  exit 2
fi
fuzzer=$1 seconds=$2 artifacts=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)

work=$(mktemp -d "${TMPDIR:-/tmp}/tlc-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/corpus" "$artifacts"
for seeds in "$@"; do
  [[ -d "$seeds" ]] || continue
  for f in "$seeds"/*; do
    [[ -f "$f" ]] && cp "$f" "$work/corpus/$(basename "$(dirname "$f")")-$(basename "$f")"
  done
done

log=$artifacts/fuzz.log
# detect_leaks is on by default; keep it explicit.
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
  "$fuzzer" "$work/corpus" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -max_len=4096 \
    -dict="$here/tile.dict" -artifact_prefix="$artifacts/" -print_final_stats=1 \
    >"$log" 2>&1
status=$?
if [[ $status -ne 0 ]]; then
  tail -n 150 "$log"
  echo "FAIL: tlc-fuzz-frontend exited with status $status; input and log in $artifacts"
  echo "(reproduce: $fuzzer <input>; minimize: $fuzzer -minimize_crash=1 -runs=10000 <input>)"
  exit 1
fi
grep -E '^(#[0-9]+[[:space:]]+(INITED|DONE)|stat::)' "$log"
echo "fuzz.frontend: no crash in ${seconds}s ($(ls "$work/corpus" | wc -l) inputs in the corpus)"
