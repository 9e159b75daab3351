#!/usr/bin/env bash
# Checks that every C++ file of the repository is formatted by .clang-format (LLVM style, 100
# columns) with clang-format 22 (scripts/install-deps.sh installs it): exit 0 when all are, 1
# listing the files that are not (fix: scripts/check-format.sh --fix), 77 when clang-format-22
# is missing. Other clang-format versions format differently, so only 22 is used.
set -u
cd "$(dirname "$0")/.."
fmt=$(command -v clang-format-22 || true)
[ -z "$fmt" ] && [ -x /usr/lib/llvm-22/bin/clang-format ] && fmt=/usr/lib/llvm-22/bin/clang-format
if [ -z "$fmt" ]; then
  echo "check-format: clang-format-22 not found (scripts/install-deps.sh installs it); skipped"
  exit 77
fi
if git rev-parse --is-inside-work-tree > /dev/null 2>&1; then
  mapfile -t files < <(git ls-files '*.cpp' '*.h')
else
  mapfile -t files < <(find bench examples include lib test tools -name '*.cpp' -o -name '*.h')
fi
if [ "${1:-}" = "--fix" ]; then
  "$fmt" -i "${files[@]}"
  exit 0
fi
bad=0
for f in "${files[@]}"; do
  if ! "$fmt" --dry-run --Werror "$f" > /dev/null 2>&1; then
    echo "check-format: $f is not formatted (scripts/check-format.sh --fix)"
    bad=1
  fi
done
[ $bad -eq 0 ] && echo "check-format: ${#files[@]} files formatted"
exit $bad
