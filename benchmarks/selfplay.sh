#!/usr/bin/env bash
# Learning curves of Smooth UCT and extensive-form UCT in self-play (players.learning.selfplay),
# with the tuned parameters of Heinrich, "Smooth UCT Search" (Section 3.5):
#   Kuhn:  smooth-uct c=1.75 gamma=0.1 eta0=0.9 d=0.001; efg-uct c=2   (10 million episodes, 3 seeds)
#   Leduc: smooth-uct c=18 gamma=0.1 eta0=0.9 d=0.002;  efg-uct c=20  (LEDUC_EPISODES, default 5e8)
# The thesis gives c in chips; here it is on the utilities' -1..1 scale (ggp.solvers.efg.utility_unit):
# a chip is 25 goal points of Kuhn's half range of 50 and 3 of Leduc's 39, so c/2 and c*3/39.
# Writes benchmarks/results/selfplay/{kuhn,leduc}.csv and .png;
# one run at a time (each is one core).
set -euo pipefail
cd "$(dirname "$0")/.."
out=benchmarks/results/selfplay
mkdir -p "$out"
leduc_episodes=${LEDUC_EPISODES:-500000000}

append=()
for seed in 0 1 2; do
    for player in smooth-uct:c=0.875,gamma=0.1,eta0=0.9,d=0.001 efg-uct:c=1; do
        ggp exploit kuhn --player "$player" --episodes 10000000 --seed "$seed" \
            --curve "$out/kuhn.csv" "${append[@]}"
        append=(--append)
    done
done

append=()
for player in smooth-uct:c=1.3846,gamma=0.1,eta0=0.9,d=0.002 efg-uct:c=1.5385; do
    ggp exploit leduc --player "$player" --episodes "$leduc_episodes" --seed 0 \
        --curve "$out/leduc.csv" "${append[@]}"
    append=(--append)
done
