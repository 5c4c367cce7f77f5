#!/usr/bin/env bash
# NFSP by sampling (players/learning/nfsp_sampled.py) on two GDL-II games whose trees are too large
# to build, IIGS-13 and phantom tic-tac-toe: train the default `nfsp` for MINUTES (30) on each,
# the two side by side (one core each), saved in out/nfsp/GAME; then play the saved average
# policies (nfsp:load=..., no training in the match) 200 matches against ismcts and 200
# against mccr:tree=sampled per game, roles swapped every match, 100 simulations or
# iterations a move for the opponents (benchmarks/nfsp_sampled_GAME.yaml).
# Tables: benchmarks/results/nfsp_sampled/GAME/.  Run from the repository.
set -euo pipefail
cd "$(dirname "$0")/.."
minutes=${MINUTES:-30}
mkdir -p out/nfsp
for game in iigs13 phantomttt; do
    # --episodes is a ceiling; the minutes stop the run (Ctrl-C keeps the last minute's save)
    timeout -s INT $((minutes * 60)) ggp exploit "$game" --player nfsp --episodes 100000000 \
        --save "out/nfsp/$game" --json > "out/nfsp/$game.json" || true &
done
wait
for game in iigs13 phantomttt; do
    ggp study "benchmarks/nfsp_sampled_$game.yaml" --workers 2
done
