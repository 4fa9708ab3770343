#!/bin/sh
# soak_seeds.sh - the randomised coherence test (node_coherence's
# test_randomised, checked against a model of release consistency) for
# many seeds on one layout.
# Usage: soak_seeds.sh DSMRUN NODES THREADS FIRST_SEED NODE_COHERENCE
# Seeds: 32 x $SOAK_SCALE (default 1) from FIRST_SEED, 8 seeds per job
# (each job a fresh start of the cluster).  Layer: tests, suite 'soak'.
set -eu
dsmrun=$1 nodes=$2 threads=$3 first=$4 program=$5
scale=${SOAK_SCALE:-1}
jobs=$((4 * scale))
start=$(date +%s)
seed=$first
i=0
while [ $i -lt "$jobs" ]; do
    COH_SEED_FIRST=$seed COH_SEEDS=8 \
        "$dsmrun" -n "$nodes" -t "$threads" "$program" test_randomised
    seed=$((seed + 8))
    i=$((i + 1))
done
end=$(date +%s)
echo "figure: randomised coherence, ${nodes}x${threads}: $((jobs * 8)) seeds" \
     "($first..$((seed - 1))), 12 phases x 400 operations per thread each," \
     "no failure, in $((end - start)) s"
