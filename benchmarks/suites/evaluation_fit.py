"""How well a learned evaluation predicts the outcome of real play: the
material evaluation of random playouts (players.perfect.heuristic) against
the self-play evaluation (players.perfect.evaluation), both judged on
held-out self-play games of a stronger search (more simulations a move,
other seeds).  A row on the held-out games, then one per training seed.

Per seed: ``r2`` and ``sign`` (players.perfect.evaluation.held_out) for
``random`` (material_evaluation, 200 playouts), ``selfplay`` (targets the
search's root values, as ``selfplay_evaluation`` fits them), ``outcomes``
(the same states fitted to their games' final goals instead) and
``constant`` (each role's mean target alone); seconds to play and to fit;
per role its material weights and those the sign check dropped
(``dropped``, ``outcomes_dropped``).  ``interval``: a 95% bootstrap interval, over
held-out games, of selfplay's sign and r2 less random's.
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks.harness import Suite, markdown
from ggp import load_game
from players.perfect.evaluation import feature_groups, fit, held_out, play
from players.perfect.heuristic import material_evaluation, move_scale


class EvaluationFit(Suite):
    about = "how well the material and the self-play evaluations predict held-out games"
    duration = "30 minutes"

    def options(self, parser):
        parser.add_argument("game", help="a .kif path or a name")
        parser.add_argument("--games", type=int, default=40)
        parser.add_argument("--simulations", type=int, default=50)
        parser.add_argument("--seeds", type=int, default=3, help="training seeds 0..N-1")
        parser.add_argument("--test-games", type=int, default=100)
        parser.add_argument("--test-simulations", type=int, default=200)
        parser.add_argument("--test-seed", type=int, default=1000)

    def jobs(self, args):
        return [
            {
                "game": args.game,
                "games": args.games,
                "simulations": args.simulations,
                "seeds": args.seeds,
                "test_games": args.test_games,
                "test_simulations": args.test_simulations,
                "test_seed": args.test_seed,
            }
        ]

    def measure(self, job, args):
        sm = load_game(job["game"]).state_machine()
        began = time.monotonic()
        test_states, test_goals, _ = play(
            sm, job["test_games"], job["test_simulations"], job["test_seed"]
        )
        games = games_of(test_states, sm.initial_state())
        rows = [
            {
                "seed": None,
                "held_out_games": len(games),
                "held_out_states": len(test_states),
                "play_seconds": round(time.monotonic() - began, 1),
                "first_role_wins": round(float((test_goals[:, 0] > 50).mean()), 3),
            }
        ]
        groups = feature_groups(sm.base_propositions)
        for seed in range(job["seeds"]):
            began = time.monotonic()
            random_eval = material_evaluation(sm, seed=seed)
            random_seconds = time.monotonic() - began
            began = time.monotonic()
            states, goals, values = play(sm, job["games"], job["simulations"], seed)
            play_seconds = time.monotonic() - began
            began = time.monotonic()
            weights, bias, material, dropped = fit(states, values, groups, sm.roles)
            selfplay = (weights, bias, move_scale(states, weights))
            fit_seconds = time.monotonic() - began
            outcome_weights, outcome_bias, _, outcome_dropped = fit(states, goals, groups, sm.roles)
            outcomes = (outcome_weights, outcome_bias, 1.0)
            constant = (np.zeros_like(weights), values.mean(axis=0), 1.0)
            row = {
                "seed": seed,
                "random": held_out(random_eval, test_states, test_goals),
                "selfplay": held_out(selfplay, test_states, test_goals),
                "outcomes": held_out(outcomes, test_states, test_goals),
                "constant": held_out(constant, test_states, test_goals),
                "interval": interval(random_eval, selfplay, test_states, test_goals, games),
                "random_seconds": round(random_seconds, 2),
                "play_seconds": round(play_seconds, 2),
                "fit_seconds": round(fit_seconds, 3),
                "states": len(states),
                "material": [{"/".join(k): round(v, 2) for k, v in m.items()} for m in material],
                "dropped": [[list(f) for f in d] for d in dropped],
                "outcomes_dropped": [[list(f) for f in d] for d in outcome_dropped],
            }
            for key in ("random", "selfplay", "outcomes", "constant"):
                row[key] = {k: round(v, 3) for k, v in row[key].items()}
            rows.append(row)
        return rows

    def table(self, rows):
        held = [r for r in rows if r["seed"] is None]
        seeds = [r for r in rows if r["seed"] is not None]
        fits = ("random", "selfplay", "outcomes", "constant")
        return (
            markdown(
                held,
                [
                    ("game", "{game}"),
                    ("held-out games", "{held_out_games}"),
                    ("their states", "{held_out_states:,}"),
                    ("simulations a move", "{test_simulations}"),
                    ("first role wins", "{first_role_wins}"),
                ],
            )
            + "\n"
            + markdown(
                seeds,
                [("game", "{game}"), ("seed", "{seed}")]
                + [
                    (f"{name}: r2, sign", lambda r, n=name: f"{r[n]['r2']}, {r[n]['sign']}")
                    for name in fits
                ]
                + [
                    (
                        "selfplay less random, 95%: r2; sign",
                        lambda r: "{} .. {}; {} .. {}".format(
                            *r["interval"]["r2"], *r["interval"]["sign"]
                        ),
                    ),
                    ("states", "{states:,}"),
                    ("play s", "{play_seconds}"),
                    ("fit s", "{fit_seconds}"),
                ],
            )
        )


def games_of(states, initial) -> list:
    """Row ranges of the games in ``states`` (each starts at ``initial``)."""
    starts = [i for i in range(len(states)) if states[i].tobytes() == initial]
    return list(zip(starts, starts[1:] + [len(states)]))


def interval(a, b, states, goals, games, resamples=1000, seed=0) -> dict:
    """95% bootstrap interval, resampling held-out games, of b's r2 and sign less a's."""
    rng = np.random.default_rng(seed)
    differences: dict = {"r2": [], "sign": []}
    for _ in range(resamples):
        picked = rng.integers(len(games), size=len(games))
        rows = np.concatenate([np.arange(*games[i]) for i in picked])
        x, y = held_out(a, states[rows], goals[rows]), held_out(b, states[rows], goals[rows])
        for key in differences:
            differences[key].append(y[key] - x[key])
    return {
        k: [round(float(q), 3) for q in np.percentile(v, [2.5, 97.5])]
        for k, v in differences.items()
    }


SUITE = EvaluationFit()
