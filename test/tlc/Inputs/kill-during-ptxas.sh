#!/bin/bash
# kill-during-ptxas.sh TLC INPUT DIR: runs TLC on INPUT with a ptxas that waits, sends TLC
# SIGTERM while ptxas runs, and lists what TLC left in its TMPDIR and output directory.
set -eu
tlc=$1 input=$2 dir=$3
rm -rf "$dir"
mkdir -p "$dir/cuda/bin" "$dir/tmp" "$dir/out"
cat > "$dir/cuda/bin/ptxas" <<EOF
#!/bin/sh
echo \$\$ > "$dir/ptxas.pid"
exec sleep 60
EOF
chmod +x "$dir/cuda/bin/ptxas"
TMPDIR="$dir/tmp" "$tlc" "$input" --cuda-path "$dir/cuda" -o "$dir/out/k" 2>/dev/null &
pid=$!
for _ in $(seq 300); do
  [ -s "$dir/ptxas.pid" ] && break
  sleep 0.1
done
echo "while ptxas runs: $(ls -A "$dir/tmp" | sed 's/\..*//' | sort -u)"
kill -TERM "$pid"
status=0
wait "$pid" || status=$?
kill "$(cat "$dir/ptxas.pid")" 2>/dev/null || true
echo "tlc exit status $status"
echo "left in TMPDIR: $(ls -A "$dir/tmp" | wc -l)"
echo "outputs: $(ls -A "$dir/out" | wc -l)"
