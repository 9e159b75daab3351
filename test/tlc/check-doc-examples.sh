#!/usr/bin/env bash
# Compiles every fenced code block of the given Markdown files that holds a `kernel` with
# `tlc --check`. Usage: check-doc-examples.sh <tlc> <workdir> <file.md>...
set -u
tlc=$1 work=$2
shift 2
mkdir -p "$work"
found=0 failed=0
for doc in "$@"; do
  # Split the fenced blocks into numbered files.
  awk -v dir="$work" -v base="$(basename "$doc" .md)" '
    /^```/ { if (inside) { inside = 0; close(out) } else { inside = 1; n++; out = dir "/" base "-" n ".tile"; printf "" > out } next }
    inside { print >> out }
  ' "$doc"
  for block in "$work/$(basename "$doc" .md)"-*.tile; do
    [ -e "$block" ] || continue
    grep -Eq '^kernel [A-Za-z_][A-Za-z0-9_]*[<(]' "$block" || continue
    found=$((found + 1))
    if ! "$tlc" --check "$block"; then
      echo "FAILED: a kernel example in $doc does not compile ($block)"
      failed=$((failed + 1))
    fi
  done
done
echo "doc examples: $found compiled, $failed failed"
[ "$found" -gt 0 ] && [ "$failed" -eq 0 ]
