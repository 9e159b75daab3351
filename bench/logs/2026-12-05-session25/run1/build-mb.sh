#!/bin/bash
set -e
cd /work/main/build
T0=$(date +%s)
tr '\n' '\0' < /tmp/mb/tlc.txt | xargs -0 -P2 -I{} bash -c '{}' 
echo "tlc done $(( $(date +%s) - T0 )) s"
grep -o -- '-o [^ ]*\.o' /tmp/mb/cxx.txt | awk '{print $2}' | while read o; do mkdir -p "test/gpu/$(dirname $o)"; done
grep -v '^: &&' /tmp/mb/cxx.txt | tr '\n' '\0' | xargs -0 -P2 -I{} bash -c '{}'
bash -c "$(grep '^: &&' /tmp/mb/cxx.txt)"
echo "all done $(( $(date +%s) - T0 )) s"
