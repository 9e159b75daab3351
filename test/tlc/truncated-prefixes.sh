#!/usr/bin/env bash
# truncated-prefixes.sh TLC FILE...: `tlc --check` on every proper prefix of every FILE must fail
# cleanly: exit status 1 with a located error (`<file>:<line>:<col>: error:`), never a crash
# (exit > 1, a signal), a hang or success. A prefix that ends after a kernel's closing '}' (alone
# on its line) with only blanks or comments after it may also check (exit 0): it is a file of
# whole kernels. The whole FILE itself must check.
#
# Files up to TLC_PREFIX_FULL_MAX bytes (default 4096) are cut at every byte; longer ones at
# every byte of their last 256 bytes and every 3rd byte before. Prefixes run in parallel,
# TLC_PREFIX_JOBS (default 2) processes at a time. Run by CTest as `truncated-kernels`.
set -u -o pipefail
export LC_ALL=C

# Worker: --batch TLC DIR FILE:LENGTH:MUSTFAIL... checks those prefixes and prints one line per
# failure. Bash builtins only, besides tlc and timeout: the run time is spent starting tlc.
if [[ "${1:-}" == "--batch" ]]; then
  export LC_ALL=C # byte offsets, not characters
  tlc=$2 dir=$3
  shift 3
  loaded=
  for item in "$@"; do
    mustfail=${item##*:}
    item=${item%:*}
    file=${item%:*} length=${item##*:}
    if [[ "$loaded" != "$file" ]]; then
      IFS= read -r -d '' content <"$file"
      loaded=$file
    fi
    name=${file##*/}
    prefix="$dir/${name%.tile}.$length.tile"
    printf '%s' "${content:0:length}" >"$prefix"
    timeout 20 "$tlc" --check "$prefix" >/dev/null 2>"$prefix.err"
    status=$?
    err=$(<"$prefix.err")
    located='(^|'$'\n'')'"$prefix"':[0-9]+:[0-9]+: error: '
    problem=
    if [[ $status -eq 0 ]]; then
      [[ $mustfail -eq 1 ]] && problem="accepted (exit 0)"
    elif [[ $status -eq 124 ]]; then
      problem="timed out"
    elif [[ $status -ne 1 ]]; then
      problem="exit status $status (crash?): ${err:0:400}"
    elif ! [[ "$err" =~ $located ]]; then
      problem="no located error: ${err:0:400}"
    fi
    if [[ -z "$problem" ]]; then
      rm -f "$prefix" "$prefix.err"
      continue
    fi
    echo "FAIL $file, prefix of $length bytes: $problem"
    # Keep the failing prefix for a look.
    mkdir -p "$dir/failures"
    mv "$prefix" "$prefix.err" "$dir/failures/"
  done
  exit 0
fi

if [[ $# -lt 2 ]]; then
  echo "usage: $0 TLC FILE..." >&2
  exit 2
fi
tlc=$1
shift
full_max=${TLC_PREFIX_FULL_MAX:-4096}
jobs=${TLC_PREFIX_JOBS:-2}
dir=$(mktemp -d "${TMPDIR:-/tmp}/tlc-prefixes.XXXXXX")
keep=0
trap '[[ $keep -eq 1 ]] || rm -rf "$dir"' EXIT

count=0
items=()
for file in "$@"; do
  if ! "$tlc" --check "$file" >/dev/null 2>"$dir/whole.err"; then
    echo "FAIL $file itself does not check: $(head -c 400 "$dir/whole.err")"
    exit 1
  fi
  size=$(wc -c <"$file")
  # A kernel ends with a '}' alone on its line: a prefix that ends inside a kernel must fail;
  # one that ends after a kernel's '}' with only blanks or comments after it is a shorter
  # file of whole kernels and may also be accepted.
  IFS= read -r -d '' content <"$file"
  whole='^([[:space:]]|//[^'$'\n'']*)*$'
  for ((length = 0; length < size; length++)); do
    if ((size > full_max && length < size - 256 && length % 3 != 0)); then
      continue
    fi
    prefix=${content:0:length}
    mustfail=1
    if [[ "$prefix" == *$'\n}'* || "$prefix" == '}'* ]]; then
      rest=${prefix##*$'\n}'}
      [[ "$rest" =~ $whole ]] && mustfail=0
    fi
    items+=("$file:$length:$mustfail")
  done
done
count=${#items[@]}

failures=$(printf '%s\n' "${items[@]}" | xargs -P "$jobs" -n 32 "$BASH" "$0" --batch "$tlc" "$dir")
if [[ -n "$failures" ]]; then
  keep=1
  echo "$failures" | sort -t' ' -k2,2 -k5,5n | head -50
  echo "$(echo "$failures" | wc -l) of $count prefixes failed; inputs kept in $dir/failures"
  exit 1
fi
echo "$count prefixes of $# files: each rejected with a located error (or, past the last '}', accepted)"
