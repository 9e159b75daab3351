#!/bin/bash
set -u
L=$OUT/logs; mkdir -p $L
cuobjdump -sass devcarry/v_def.fatbin > $L/v_def.sass 2>&1
timeout 200 devcarry/prof > $L/prof.txt 2>&1
cat $L/prof.txt
