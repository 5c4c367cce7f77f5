#!/bin/sh
# The evaluation of online players in Šustr, Kovařík and Lisý, "Monte Carlo Continual
# Resolving" (slides): the exploitability of the strategy each player plays (run at
# every decision it can reach, as both roles, 10 seeds averaged) for budgets of 10^2,
# 10^3 and 10^4 iterations a move.  One CSV and one PNG a game in
# benchmarks/results/seed001/online_GAME.{csv,png}.  IS-MCTS runs through the match
# interface, each of its decisions searched once (players/imperfect/evaluation.py); on Liar's Dice
# (12,288 information states a role) at 10^2 and 10^3 simulations only.  OOS with IST
# targeting is left out on Liar's Dice: its evaluation copies the solver and masks the
# whole tree at each of those decisions.
# Run from the repository: sh benchmarks/seed001_online.sh [GAME ...]
set -e
out=benchmarks/results/seed001
for game in ${@:-iigs5 leduc liarsdice}; do
    csv=$out/online_$game.csv
    rm -f "$csv"
    for spec in mccr mccr:variant=reset oos oos:targeting=ist mccfr; do
        [ "$game" = liarsdice ] && [ "$spec" = oos:targeting=ist ] && continue
        ggp exploit "$game" --player "$spec" --online --seeds 10 --budgets 100,1000,10000 \
            --curve "$csv" --append
    done
    ggp exploit "$game" --player random --online --seeds 1 --curve "$csv" --append
done
for game in ${@:-iigs5 leduc liarsdice}; do
    budgets=100,1000,10000
    [ "$game" = liarsdice ] && budgets=100,1000
    ggp exploit "$game" --player ismcts --online --seeds 10 --budgets $budgets \
        --curve "$out/online_$game.csv" --append
done
