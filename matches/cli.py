"""The ``ggp`` command.

Every command takes ``--json`` for scripts.  GAME is a name in games_gdl or a
path to a .kif file.  Every error of every command is one line on stderr,
``ggp: ...`` (with ``--json``, one object ``{"error": {"kind", "message",
"file", "line", "column"}}`` on stdout), and exit status 1; numbers are
checked by the argument parser, player specs against the players'
declarations, before anything runs.  No Python traceback reaches the user:
an unexpected one is reported on one line as an internal error (set
``GGP_DEBUG=1`` to see it).

The command line lives in ``matches`` because it drives everything below it
(gdl, ggp, players, matches) and nothing below may import what is above.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
import time
import traceback
import warnings
from pathlib import Path

import gdl
from ggp import GameError, RuleError, load_game
from ggp.progress import TIMED, Progress
from ggp.reasoners import names as reasoner_names
from ggp.reasoners.ground import EFFORT, GROUND_LIMIT
from ggp.solvers.efg import HISTORY_LIMIT, TreeTooLarge, build_tree
from ggp.tools.check import check_playouts
from ggp.tools.count import count
from matches.manager import MAX_STEPS
from matches.server import DEFAULT_MARGIN
from players.params import Param, settings


class UserError(Exception):
    """A one-line complaint about the user's input; ``kind`` names what was
    wrong (``usage``, ``player``, ``io``, ...)."""

    def __init__(self, message: str, kind: str = "usage"):
        super().__init__(message)
        self.kind = kind


class Interrupted(UserError):
    """Ctrl-C: one line saying what was kept and where (exit status 130)."""

    def __init__(self, message: str):
        super().__init__(f"interrupted: {message}", "interrupted")


def _emit(args, data: dict, text: str):
    print(json.dumps(data, indent=2, default=str) if args.json else text)


def _words(value) -> str:
    """A value as text for people: a list or tuple comma-separated, a dict as
    ``key value`` pairs, a truth value as yes or no."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return ", ".join(f"{k} {_words(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_words(v) for v in value)
    return str(value)


def _lines(data: dict) -> list[str]:
    """``key: value`` lines of ``data`` for the text output: a field without
    a value (None: not asked for, not measured) is left out."""
    return [f"{k}: {_words(v)}" for k, v in data.items() if v is not None]


#: ``--max-bytes``'s default, the bound of every reader of games.
MAX_BYTES = gdl.MAX_BYTES


def _load(args, source=None):
    """The game the command names, within ``--max-bytes``; kept on ``args``
    so that a rule the game breaks while playing is reported at its place in
    the file."""
    try:
        args.loaded = load_game(source or args.game, args.max_bytes)
    except gdl.TooLarge as exc:
        first = exc.first
        raise gdl.GdlError(
            [gdl.Diagnostic(first.pos, first.kind, f"{first.message} (--max-bytes N allows more)")]
        ) from None
    return args.loaded


# --- commands ----------------------------------------------------------------


def cmd_check(args) -> int:
    try:
        game = _load(args)
    except gdl.GdlError as exc:
        errors = [d for d in exc.diagnostics if d.severity == "error"]
        if args.json:
            print(
                json.dumps(
                    {
                        "game": args.game,
                        "valid": False,
                        "error": _error_object(errors[0]),
                        "errors": [_error_object(d) for d in errors],
                    },
                    indent=2,
                )
            )
        else:
            for diagnostic in exc.diagnostics:
                print(f"ggp: {diagnostic}", file=sys.stderr)
        return 1
    report = check_playouts(
        _machine(args, game),
        args.playouts,
        max_steps=args.max_steps,
        seconds=args.seconds,
        seed=args.seed,
    )
    error = report.pop("error")
    failed = report.pop("failed_playout")
    valid = error is None
    data = {
        "game": game.name,
        "valid": valid,
        "warnings": [str(w) for w in game.warnings],
        **report,
    }
    if not args.json:
        for warning in game.warnings:
            print(f"ggp: {warning}", file=sys.stderr)
    if not valid:
        diagnostic = game.diagnostic(error)
        data.update(
            error=_error_object(diagnostic),
            errors=[_error_object(diagnostic)],
            failed_playout=failed,
        )
        if args.json:
            print(json.dumps(data, indent=2, default=str))
        else:
            print(f"ggp: {diagnostic}", file=sys.stderr)
        return 1
    data["errors"] = []
    _emit(
        args,
        data,
        f"{game.name}: valid: {report['playouts']} random playouts "
        f"({report['steps']} steps), mean depth {report['mean_depth']:.1f}, "
        f"max depth {report['max_depth']}",
    )
    return 0


def cmd_info(args) -> int:
    from ggp.reasoners.domains import base_and_input
    from ggp.reasoners.reference import Effort, TooMuchWork

    game = _load(args)
    try:  # the relaxed domain, within --ground-limit facts and --ground-effort
        base, inputs = base_and_input(
            game.rules, args.ground_limit // 2, Effort(args.ground_effort)
        )
        counted, why = (len(base), len(inputs)), None
    except GameError as exc:
        counted, why = (None, None), str(exc)
        if isinstance(exc, TooMuchWork):
            why += " (--ground-effort N allows more)"
    relations = {gdl.ast.name_of(r.head) for r in game.rules}
    data = {
        "game": game.name,
        "roles": list(game.roles),
        "gdl2": game.is_gdl2,
        "rules": sum(1 for r in game.rules if r.body),
        "facts": sum(1 for r in game.rules if not r.body),
        "relations": len(relations),
        "base_propositions": counted[0],
        "input_propositions": counted[1],
        "not_counted": why,
        "warnings": [str(w) for w in game.warnings],
    }
    if args.tree or args.public or args.features:
        tree = _tree(args, game)
        data.update(
            histories=tree.histories,
            terminals=tree.terminals,
            information_states=tree.information_states(),
        )
    if args.features:
        from ggp.solvers.features import Encoding

        data["features"] = [Encoding(tree, p).describe(role) for p, role in enumerate(tree.players)]
    if args.public:
        from ggp.solvers.public import public_states

        start = time.perf_counter()
        public = public_states(tree)
        data.update(
            public_states=len(public),
            largest_public_state=public.largest(),
            public_seconds=round(time.perf_counter() - start, 3),
        )
    text = "\n".join(
        _lines({k: v for k, v in data.items() if k != "features" and (v or k != "warnings")})
    )
    for f in data.get("features", ()):
        text += (
            f"\nfeatures of {f['role']}: {f['size']} slots: {f['depth']} steps x "
            f"({len(f['moves'])} moves + {len(f['terms'])} percepts) + "
            f"{len(f['moves'])} legal moves (--json lists them)"
        )
    _emit(args, data, text)
    return 0


def _machine(args, game):
    """The game's state machine for ``--reasoner`` and the ``--ground-*``
    limits."""
    return game.state_machine(args.reasoner, **_limits(args))


def _limits(args) -> dict:
    """The ``--ground-*`` limits, as :meth:`ggp.game.Game.state_machine` takes them."""
    return dict(limit=args.ground_limit, effort=args.ground_effort)


def _tree(args, game):
    """The game's extensive form, refused (in one line, within about a second
    when the estimate says so) past ``--max-histories``."""
    from ggp.solvers.efg import TreeTooLarge, build_tree

    try:
        return build_tree(game, limit=args.max_histories, estimate=True)
    except TreeTooLarge as exc:
        raise UserError(f"{exc} (--max-histories N sets the limit)", "tree") from None


def cmd_count(args) -> int:
    game = _load(args)
    start = time.perf_counter()
    result = count(_machine(args, game), args.depth)
    data = {
        "game": game.name,
        "reasoner": args.reasoner,
        "depth": args.depth,
        **result,
        "seconds": round(time.perf_counter() - start, 3),
    }
    _emit(args, data, "\n".join(_lines(data)))
    return 0


def cmd_solve(args) -> int:
    from ggp.solvers.cfr import expected_values, save_policy
    from ggp.solvers.solve import solve
    from players.learning.curves import checkpoints

    if args.seconds is not None and args.iterations is not None:
        raise UserError("give --iterations or --seconds, not both")
    iterations = 1000 if args.seconds is None and args.iterations is None else args.iterations
    for path in (args.curve, args.out):
        if path:
            _writable(path)
    game = _load(args)
    start = time.perf_counter()
    tree = _tree(args, game)
    points = ()
    if args.curve:
        points = checkpoints(iterations)[:-1] if iterations else checkpoints(10**15)[:-1]
    curve = []
    progress = Progress(
        f"{args.algo} {game.name}",
        "iteration",
        iterations or args.seconds,
        quiet=args.json,
        bar_format=None if iterations else TIMED,
    )
    try:
        with progress:
            solver, _ = solve(
                tree, args.algo, iterations, args.seconds, args.seed, points, curve, progress
            )
    except KeyboardInterrupt:
        if args.curve:
            _write_solve_curve(args, game, tree, curve)
        raise Interrupted(
            f"{len(curve)} curve point(s) in {args.curve} (plot beside it)"
            if args.curve
            else "nothing kept (--curve FILE keeps the curve points as they come)"
        ) from None
    policy = solver.average_policy()
    if args.out:
        save_policy(tree, policy, args.out)
    done, solving, gap = curve[-1]
    data = {
        "game": game.name,
        "algo": args.algo,
        "seed": args.seed,
        "iterations": done,
        "iterations_per_sec": round(done / solving, 1) if solving else None,
        **tree.in_units(gap, expected_values(tree, policy)),
        "policy": args.out,
        "curve": args.curve,
        "seconds": round(time.perf_counter() - start, 3),
    }
    lines = _lines(data)
    if args.curve:
        _write_solve_curve(args, game, tree, curve)
        lines += [f"{'iterations':>12} {'seconds':>9} exploitability ({tree.display.name})"]
        lines += [
            f"{n:>12} {t:>9.3f} {tree.in_units(g)['exploitability_unit']:.6f}" for n, t, g in curve
        ]
    _emit(args, data, "\n".join(lines))
    return 0


def _write_solve_curve(args, game, tree, curve) -> None:
    """The solver's curve points to ``--curve``, with their plot."""
    from players.learning.curves import plot_curves, write_curve

    write_curve(
        args.curve,
        [
            {
                "game": game.name,
                "player": args.algo,
                "seed": args.seed,
                "episodes": n,
                "seconds": round(t, 3),
                **tree.in_units(g),
            }
            for n, t, g in curve
        ],
    )
    if curve:
        plot_curves(args.curve, Path(args.curve).with_suffix(".png"))


def cmd_exploit(args) -> int:
    from ggp.solvers.cfr import expected_values, exploitability, load_policy, uniform_policy

    if args.player is None:
        given = [
            flag
            for flag, value in (
                ("--episodes", args.episodes),
                ("--curve", args.curve),
                ("--append", args.append or None),
                ("--seed", args.seed),
                ("--out", args.out),
                ("--save", args.save),
                ("--resume", args.resume or None),
            )
            if value is not None
        ]
        if given:
            raise UserError(f"{', '.join(given)}: only with --player, not with --policy")
    if args.online:
        return _exploit_online(args)
    for flag, value in (("--seeds", args.seeds), ("--budgets", args.budgets)):
        if value is not None:
            raise UserError(f"{flag}: only with --online")
    game = _load(args)
    if args.player is not None:
        try:
            tree = build_tree(game, limit=args.max_histories, estimate=True)
        except TreeTooLarge as exc:
            return _exploit_sampled(args, game, exc)
        return _exploit_selfplay(args, game, tree)
    tree = _tree(args, game)
    if args.policy == "uniform":
        policy = uniform_policy(tree)
    else:
        try:
            policy = load_policy(tree, args.policy)
        except (OSError, ValueError) as exc:
            raise UserError(f"{args.policy}: {exc}", "io") from None
    data = {
        "game": game.name,
        "policy": args.policy,
        **tree.in_units(exploitability(tree, policy), expected_values(tree, policy)),
    }
    _emit(args, data, "\n".join(_lines(data)))
    return 0


ONLINE_FIELDS = (
    "game",
    "player",
    "budget",
    "seeds",
    "unit",
    "exploitability",
    "exploitability_unit",
    "seconds",
)


def _exploit_online(args) -> int:
    """``ggp exploit --online``: the exploitability of an online player's
    strategy, run at every decision it can reach (players.imperfect.evaluation)."""
    from players.imperfect.evaluation import budget_param, online_exploitability
    from players.imperfect.online import View
    from players.learning.curves import write_curve
    from players.registry import make, parse_spec, player_class

    if args.player is None:
        raise UserError("--online goes with --player SPEC")
    if args.episodes is not None or args.out or args.save or args.resume:
        raise UserError(
            "--episodes, --out, --save and --resume are for self-play, not with --online"
        )
    if args.append and not args.curve:
        raise UserError("--append goes with --curve")
    if args.curve:
        _writable(args.curve)
    try:
        player = make(args.player)  # the spec, checked before any work
        name, given = parse_spec(args.player)
    except ValueError as exc:
        raise UserError(str(exc), "player") from None
    budgets = _online_budgets(args, player, budget_param(player_class(name)), given)
    game = _load(args)
    view = View(_tree(args, game))
    seeds, rows = args.seeds or 10, []
    unit = view.tree.display

    def curve_records():
        return [
            {
                "game": game.name,
                "player": args.player,
                "budget": b,
                "seeds": seeds,
                **view.tree.in_units(gap),
                "seconds": round(t, 3),
            }
            for b, gap, t in rows
        ]

    def write():
        try:
            write_curve(args.curve, curve_records(), args.append, ONLINE_FIELDS)
        except (OSError, ValueError) as exc:
            raise UserError(f"{args.curve}: {exc}", "io") from None
        if rows:
            _plot_online(args.curve, Path(args.curve).with_suffix(".png"))

    try:
        with Progress(
            f"{args.player} {game.name}",
            "run",
            len(budgets) * seeds * len(view.tree.players),
            quiet=args.json,
        ) as progress:
            online_exploitability(game, view, args.player, seeds, budgets, rows, progress)
    except ValueError as exc:
        raise UserError(str(exc), "player") from None
    except KeyboardInterrupt:
        if args.curve:
            write()
        raise Interrupted(
            f"{len(rows)} of {len(budgets)} budgets done"
            + (f", in {args.curve}" if args.curve else " (--curve FILE keeps them)")
        ) from None
    if args.curve:
        write()
    records = curve_records()
    data = {
        "game": game.name,
        "player": args.player,
        "seeds": args.seeds or 10,
        "unit": unit.name,
        "rows": records,
        "curve": args.curve,
    }
    lines = [
        f"game: {game.name}",
        f"player: {args.player}",
        f"seeds: {args.seeds or 10}",
        f"{'budget':>8} {'exploitability (' + unit.name + ')':>24} {'seconds':>9}",
    ]
    lines += [
        f"{r['budget'] or '-':>8} {r['exploitability_unit']:>24.6f} {r['seconds']:>9.2f}"
        for r in records
    ]
    _emit(args, data, "\n".join(lines))
    return 0


def _online_budgets(args, player, knob, given) -> list:
    """The budgets a move ``--online`` runs, a row each: ``--budgets``, else
    the one the spec gives (``iterations=1000``), else 100, 1,000 and 10,000;
    one row (None) for a player without a budget.  ``--budgets`` where the
    spec gives one, or where the player has none, is refused."""
    if knob is None:
        if args.budgets:
            raise UserError(
                f"--budgets: player {player.name} has no budget a move "
                "(iterations or simulations) to set"
            )
        return [None]
    if knob in given:
        if args.budgets:
            raise UserError(
                f"--budgets and {knob}={given[knob]} in {args.player} both set "
                "the budget a move: give one"
            )
        return [getattr(player, knob)]
    return args.budgets or [100, 1000, 10000]


def _plot_online(csv_path, png_path) -> None:
    """Exploitability against the budget a move, log-log, one line per player."""
    import csv

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines: dict = {}
    with open(csv_path, newline="") as f:
        for row in csv.DictReader(f):
            budget = int(row["budget"]) if row["budget"] not in ("", "None") else None
            lines.setdefault((row["game"], row["player"]), []).append(
                (budget, float(row["exploitability_unit"]), row["unit"])
            )
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for (game, player), points in lines.items():
        if all(b is None for b, _, _ in points):
            ax.axhline(points[0][1], ls="--", color="grey", label=f"{player} ({game})")
            continue
        points = sorted((b, g) for b, g, _ in points if b is not None)
        ax.plot(*zip(*points), marker="o", label=f"{player} ({game})")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("budget a move (iterations or simulations)")
    units = sorted({u for points in lines.values() for _, _, u in points})
    ax.set_ylabel(f"exploitability ({' / '.join(units)})")
    ax.set_title("online players: exploitability of the double-bar strategy")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png_path, dpi=120)
    plt.close(fig)


def _exploit_selfplay(args, game, tree) -> int:
    """``ggp exploit --player``: learn by self-play, then score the average policy."""
    from ggp.solvers.cfr import save_policy
    from players.learning.curves import checkpoints
    from players.learning.nfsp import LEARNERS, NFSP
    from players.learning.selfplay import learner_for, train
    from players.registry import parse_spec

    episodes = 1_000_000 if args.episodes is None else args.episodes
    if args.append and not args.curve:
        raise UserError("--append goes with --curve")
    if args.resume and not args.save:
        raise UserError("--resume goes with --save DIR")
    if args.save and parse_spec(args.player)[0] not in LEARNERS:
        raise UserError(
            "--save: only nfsp and mc-nfsp learners are saved (the others "
            "train in seconds: --out saves their policy)"
        )
    for path in (args.curve, args.out, args.save):
        if path:
            _writable(path)
    learner, earlier = None, 0
    if args.resume:
        try:
            learner = NFSP.load(tree, args.save)
            earlier = len(learner.curve) if args.append else 0  # already in the file
        except (OSError, ValueError, KeyError) as exc:
            raise UserError(f"{args.save}: no learner to resume ({exc})", "io") from None
    try:
        learner = learner or learner_for(
            tree, args.player, {} if args.seed is None else {"seed": args.seed}
        )
    except ValueError as exc:
        raise UserError(str(exc), "player") from None
    progress = Progress(f"{learner.name} {game.name}", "episode", episodes, quiet=args.json)
    try:
        with progress:
            train(
                tree,
                episodes=episodes,
                learner=learner,
                progress=progress,
                points=checkpoints(episodes) if args.curve else [episodes],
                after=lambda learner: progress.note(
                    f"exploitability {learner.curve[-1].exploitability:.4f}"
                ),
                keep=(lambda learner: learner.save(args.save)) if args.save else None,
            )
    except KeyboardInterrupt:
        kept = [
            f"{len(learner.curve) - earlier} curve point(s) in {args.curve} (plot beside it)"
            if args.curve
            else "no curve (--curve FILE keeps its points)"
        ]
        if args.save:
            kept.append(f"the learner as last saved in {args.save} (--resume goes on)")
        _write_selfplay_curve(args, learner, game, earlier)
        raise Interrupted(
            f"{learner.episodes:,} of {episodes:,} episodes; {' and '.join(kept)}"
        ) from None
    _write_selfplay_curve(args, learner, game, earlier)
    if args.out:
        save_policy(tree, learner.average_policy(), args.out)
    gap = learner.curve[-1].exploitability
    data = {
        "game": game.name,
        "player": learner.spec,
        "seed": learner.params["seed"],
        "episodes": learner.episodes,
        **tree.in_units(gap),
        "episodes_per_sec": round(learner.episodes / learner.seconds, 1),
        "seconds": round(learner.seconds, 3),
        "curve": args.curve,
        "policy": args.out,
    }
    lines = _lines(data)
    if args.curve:
        lines += [f"{'episodes':>12} {'seconds':>9} exploitability ({tree.display.name})"]
        lines += [
            f"{p.episodes:>12} {p.seconds:>9.3f} "
            f"{tree.in_units(p.exploitability)['exploitability_unit']:.6f}"
            for p in learner.curve
        ]
    _emit(args, data, "\n".join(lines))
    return 0


def _exploit_sampled(args, game, too_large) -> int:
    """``ggp exploit --player nfsp`` on a game whose tree is ``too_large``:
    NFSP learns by sampling the game (saved with ``--save``, resumed with
    ``--resume``); exploitability is not measured, and the output says what is."""
    from players.learning.nfsp_sampled import SampledNFSP
    from players.learning.selfplay import train
    from players.registry import parse_spec

    name, given = parse_spec(args.player)
    if name != "nfsp":
        raise UserError(
            f"{too_large}: exploitability needs the whole tree; nfsp learns "
            "such a game by sampling (--player nfsp --save DIR), and its players "
            "are measured in matches (--max-histories N sets the limit)",
            "tree",
        )
    for flag, value in (("--curve", args.curve), ("--out", args.out)):
        if value is not None:
            raise UserError(
                f"{flag}: {too_large}; a curve or a policy file needs the tree "
                "(--save DIR keeps the learner)",
                "tree",
            )
    if args.resume and not args.save:
        raise UserError("--resume goes with --save DIR")
    if args.save:
        _writable(args.save)
    try:
        if args.resume:
            learner = SampledNFSP.load(game, args.save)
        else:
            learner = SampledNFSP(
                game,
                settings(
                    SampledNFSP.declared,
                    {**given, **({} if args.seed is None else {"seed": args.seed})},
                ),
            )
    except (OSError, KeyError) as exc:
        raise UserError(f"{args.save}: no learner to resume ({exc})", "io") from None
    except ValueError as exc:
        raise UserError(f"player nfsp: {exc}", "player") from None
    episodes = 1_000_000 if args.episodes is None else args.episodes
    progress = Progress(f"nfsp {game.name} (by sampling)", "episode", episodes, quiet=args.json)
    keep = (lambda learner: learner.save(args.save)) if args.save else None
    try:
        with progress:
            train(
                None,
                episodes=episodes,
                learner=learner,
                progress=progress,
                points=[episodes],
                keep=keep,
            )
    except KeyboardInterrupt:
        raise Interrupted(
            f"{learner.episodes:,} of {episodes:,} episodes"
            + (
                f"; the learner as last saved in {args.save} (--resume goes on)"
                if args.save
                else ""
            )
        ) from None
    data = {
        "game": game.name,
        "player": learner.spec,
        "seed": learner.params["seed"],
        "episodes": learner.episodes,
        "depth": learner.params["depth"],
        "episodes_per_sec": round(learner.episodes / learner.seconds, 1),
        "seconds": round(learner.seconds, 3),
        "saved": args.save,
        "exploitability": f"not measured ({too_large}); play the learner in matches, "
        f"e.g. ggp play {game.name} nfsp:load={args.save or 'DIR'} ismcts",
    }
    _emit(args, data, "\n".join(_lines(data)))
    return 0


def _write_selfplay_curve(args, learner, game, earlier: int) -> None:
    """The learner's curve points (after the ``earlier`` ones already in the
    file) to ``--curve`` with its plot, when asked."""
    from players.learning.curves import curve_rows, plot_curves, write_curve

    if not args.curve:
        return
    try:
        write_curve(args.curve, curve_rows(learner, game.name)[earlier:], args.append)
    except (OSError, ValueError) as exc:
        raise UserError(f"{args.curve}: {exc}", "io") from None
    if learner.curve:
        plot_curves(args.curve, Path(args.curve).with_suffix(".png"))


def _writable(path):
    if not Path(path).parent.is_dir():
        raise UserError(f"{path}: no such directory", "io")


def _seats(game, specs, seed) -> dict:
    """A seat per non-random role, in role order: a remote player for an
    ``http://`` spec, else a registered player in this process."""
    import players as registry
    from matches.seats import LocalSeat, RemoteSeat

    roles = [r for r in game.roles if r != "random"]
    if len(specs) != len(roles):
        raise UserError(
            f"{game.name} has {len(roles)} role(s) ({', '.join(roles)}): "
            f"give one player each, got {len(specs)}"
        )
    seats = {}
    for i, (role, spec) in enumerate(zip(roles, specs)):
        try:
            if spec.startswith("http://"):
                seats[role] = RemoteSeat(spec)
            else:
                seats[role] = LocalSeat(
                    registry.make(spec, **({} if seed is None else {"seed": seed * 1000 + i})), spec
                )
        except ValueError as exc:
            raise UserError(str(exc), "player") from None
    return seats


def _summary(record) -> dict:
    return {
        "match_id": record.match_id,
        "players": record.players,
        "goals": record.goals,
        "steps": len(record.moves),
        "moves": [[gdl.to_kif(m) for m in joint] for joint in record.moves],
        "errors": record.errors,
        "faults": record.faults,
        "aborted": record.aborted or None,
    }


def _outcome(record) -> str:
    """The end of a match in words: the goals, or why it was aborted."""
    if record.aborted:
        return f"aborted: {record.aborted}"
    return "goals: " + ", ".join(f"{r} {g}" for r, g in record.goals.items())


def _run(args, game, specs, seed, live=None):
    """One match for ``ggp play`` and ``ggp match``, narrated unless quiet,
    shown in the browser viewer as it goes when ``live`` (a LiveMatch)."""
    from matches.manager import run_match

    seats = _seats(game, specs, seed)
    narrate = not (args.json or args.quiet)
    if narrate:
        print(
            f"{game.name}: "
            + ", ".join(f"{r} {s}" for r, s in zip(seats, specs))
            + f"; start clock {args.startclock} s, play clock {args.playclock} s"
        )
    hooks = ([_printer(game)] if narrate else []) + ([live.on_step] if live else [])
    record = run_match(
        game,
        seats,
        seed=seed,
        start_clock=args.startclock,
        play_clock=args.playclock,
        specs=dict(zip(seats, specs)),
        max_steps=args.max_steps,
        on_step=(lambda *a: [hook(*a) for hook in hooks]) if hooks else None,
        on_fault=None if args.json else _report_fault(seats),
    )
    if live:
        live.finish(record)
    return record


def cmd_play(args) -> int:
    game = _load(args)
    matches = []
    for m in range(args.matches):
        seed = None if args.seed is None else args.seed + m
        record = _run(args, game, args.players, seed)
        matches.append(_summary(record))
        if not args.json:
            print(_outcome(record))
    if args.json:
        print(json.dumps({"game": game.name, "matches": matches}, indent=2))
    return 0


def cmd_match(args) -> int:
    from matches.records import MatchStore, write_json

    game = _load(args)
    if args.out:
        _writable(args.out)
    viewer = _viewer(args, "match")
    live = None
    if viewer:
        from matches.views import LiveMatch

        live = LiveMatch(viewer.live, game)
    record = _run(args, game, args.player, args.seed, live)
    if args.out:
        write_json(record, args.out)
    with MatchStore(args.db) as store:
        store.add(record)
    steps = len(record.moves)
    text = f"{steps} steps, {len(record.faults)} fault(s); {_outcome(record)}"
    _emit(args, {"game": game.name, **_summary(record)}, text)
    _keep_serving(viewer)
    return 0


def _viewer(args, kind: str):
    """The browser viewer of a running match or study (``--view``), started, or None."""
    if not args.view:
        return None
    from matches.records import default_db_path
    from matches.views import Library, Live

    viewer = _new_viewer(
        args.view_host,
        args.view_port,
        library=Library(db=args.db or default_db_path()),
        live=Live(kind),
    )
    viewer.start()
    page = "#/live" if kind == "match" else "#/study"
    print(f"viewer: {viewer.url}{page}", file=sys.stderr, flush=True)
    return viewer


def _new_viewer(host, port, **what):
    """A viewer listening on ``host:port`` (not yet serving), or a one-line error."""
    from matches.viewer import Viewer

    try:
        return Viewer(host=host, port=port, **what)
    except OSError as exc:
        raise UserError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", "io") from None


def _keep_serving(viewer) -> None:
    """After the match or study: the viewer stays up until Ctrl-C."""
    if viewer is None:
        return
    try:
        print(f"viewer: {viewer.url} stays up; Ctrl-C stops it", file=sys.stderr, flush=True)
        viewer.stopping.wait()
    except KeyboardInterrupt:
        pass
    viewer.stop()


def cmd_bench(args) -> int:
    if args.player:
        data = _bench_player(_load(args), args.player, args.seconds)
    else:
        from ggp.tools.bench import bench

        game = _load(args)
        with Progress(
            f"bench {game.name}", "s", args.seconds, quiet=args.json, bar_format=TIMED
        ) as progress:
            data = bench(game, args.reasoner, args.seconds, args.seed, _limits(args), progress)
    _emit(args, data, "\n".join(_lines(data)))
    return 0


def cmd_study(args) -> int:
    from matches.study import (
        ExecutorError,
        aborted,
        load_study,
        ranking,
        run_study,
        summary,
        tasks,
        write_matches,
        write_tables,
    )

    try:
        study = load_study(args.study)
    except (OSError, ValueError) as exc:
        raise UserError(str(exc), "study") from None
    executor = args.executor or study.executor
    if args.ray_address and executor != "ray":
        raise UserError("--ray-address goes with the ray executor (--executor ray)")
    viewer = _viewer(args, "study")
    try:
        with Progress(f"study {study.name}", "match", quiet=args.json) as progress:
            rows = run_study(
                study,
                args.workers,
                db=args.db,
                executor=executor,
                progress=progress,
                ray_address=args.ray_address,
                on_match=viewer and _publish_study(viewer, study),
            )
    except ExecutorError as exc:
        raise UserError(str(exc), executor) from None
    except KeyboardInterrupt:
        from matches.records import MatchStore, default_db_path

        with MatchStore(args.db) as store:
            kept = store.count(study.name)
        raise Interrupted(
            f"{kept} of {len(tasks(study))} matches of {study.name} kept in "
            f"{args.db or default_db_path()}; the same command plays the "
            "rest"
        ) from None
    table = summary(rows)
    ranks = ranking(rows, list(study.players))
    text = write_tables(study, table, ranks, aborted(rows))
    write_matches(study, rows)
    if viewer:
        from matches.views import plots_in, study_document

        viewer.study = study.out
        viewer.live.publish(study_document(study.name, rows, plots_in(study.out), total=len(rows)))
    _emit(
        args,
        {
            "study": study.name,
            "out": str(study.out),
            "matches": len(rows),
            "aborted": aborted(rows),
            "rows": table,
            "ranking": ranks,
        },
        text,
    )
    _keep_serving(viewer)
    return 0


def _publish_study(viewer, study):
    """``on_match`` of run_study: the study so far to the viewer's live page."""
    from matches.views import study_document

    def publish(rows, total):
        viewer.live.publish(study_document(study.name, rows, total=total))

    return publish


def cmd_view(args) -> int:
    from matches.records import default_db_path
    from matches.views import Library

    if args.study is not None and not Path(args.study).is_dir():
        raise UserError(f"{args.study}: no such directory", "io")
    db = args.db or (None if args.records or args.study else default_db_path())
    if db is not None and args.db and not Path(db).is_file():
        raise UserError(f"{db}: no such database", "io")
    viewer = _new_viewer(
        args.host, args.port, library=Library(db=db, files=args.records), study=args.study
    )
    page = "#/study" if args.study else ""
    print(
        json.dumps({"url": viewer.url + page})
        if args.json
        else f"viewer: {viewer.url}{page} (Ctrl-C stops it)",
        flush=True,
    )
    with viewer.httpd:
        viewer.httpd.serve_forever()
    return 0


def cmd_replay(args) -> int:
    from matches.records import read_json, replay

    try:
        data = read_json(args.match)
        report = replay(data, _load(args, args.game) if args.game else None)
    except OSError as exc:
        raise UserError(f"{args.match}: cannot read it: {exc.strerror or exc}", "io") from None
    except ValueError as exc:
        raise UserError(f"{args.match}: {exc}", "io") from None
    verdict = ["replay: OK"] if report.ok else report.problems
    _emit(
        args,
        {
            "match": args.match,
            "matchId": data.get("matchId"),
            "ok": report.ok,
            "problems": report.problems,
            "steps": len(data["moves"]),
        },
        "\n".join(report.lines + verdict),
    )
    return 0 if report.ok else 1


def cmd_serve(args) -> int:
    from matches.server import PlayerServer

    try:
        server = PlayerServer(
            args.player, args.host, args.port, args.name, args.margin, max_bytes=args.max_bytes
        )
    except ValueError as exc:
        raise UserError(str(exc), "player") from None
    except OSError as exc:
        raise UserError(
            f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}", "io"
        ) from None
    root = logging.getLogger()
    root.setLevel(logging.INFO)
    for handler in root.handlers:
        handler.setFormatter(logging.Formatter("%(asctime)s %(message)s"))
    with server:
        log = {
            "serving": args.player,
            "name": server.service.name,
            "url": server.url,
            "margin": args.margin,
        }
        print(
            json.dumps(log)
            if args.json
            else f"serving {args.player} as {server.service.name} on {server.url} "
            f"(margin {args.margin:g} s); Ctrl-C stops",
            flush=True,
        )
        server.serve_forever()
    return 0


def cmd_players(args) -> int:
    import players as registry

    listing = registry.registry.describe()
    lines = []
    for player in listing:
        lines.append(f"{player['name']}: {player['description']}")
        lines += [
            f"    {p['name']}{_as_given(p['default'])}  ({p['accepts']}) {p['help']}"
            for p in player["params"]
        ]
    _emit(args, {"players": listing}, "\n".join(lines))
    return 0


def _as_given(default) -> str:
    """A parameter's default as a player spec gives it (``=false``), or
    nothing when it has none (its help says what happens then)."""
    if default is None:
        return ""
    return f"={str(default).lower()}" if isinstance(default, bool) else f"={default}"


def _bench_player(game, spec, seconds) -> dict:
    """Simulations per second of a search player thinking about the first move."""
    import players as registry

    try:
        player = registry.make(spec)
    except ValueError as exc:
        raise UserError(str(exc), "player") from None
    if not hasattr(player, "think"):
        raise UserError(f"player {spec!r} does not search: nothing to measure", "player")
    role = next(r for r in game.roles if r != "random")
    player.start(game, role, 0.0, seconds)
    start = time.perf_counter()
    player.think(time.monotonic() + seconds)
    elapsed = time.perf_counter() - start
    return {
        "game": game.name,
        "player": spec,
        "simulations": player.last_simulations,
        "seconds": round(elapsed, 3),
        "simulations_per_sec": round(player.last_simulations / elapsed, 1),
    }


def _printer(game):
    """Prints each step's joint move (faults marked) and the board of grid games."""
    from matches.board import render

    def show(record, sm, state):
        if record.moves:
            joint = record.moves[-1]
            moves = ", ".join(f"{r} {gdl.to_kif(m)}" for r, m in zip(record.roles, joint))
            faults = [f"{r}: {e}" for r, e in zip(record.roles, record.errors[-1]) if e]
            searched = [
                f"{r} {n:,}" for r, n in zip(record.roles, record.simulations[-1]) if n is not None
            ]
            print(
                f"step {len(record.moves)}: {moves}"
                + (f"   [{'; '.join(faults)}]" if faults else "")
                + (f"   (simulations: {', '.join(searched)})" if searched else "")
            )
        board = render(record.states[-1], game, sm)
        if board:
            print(board)
        sys.stdout.flush()

    return show


def _report_fault(seats):
    """Prints each fault on one line as soon as the manager knows it."""

    def report(fault):
        where = (
            "START"
            if fault["phase"] == "start"
            else f"step {fault['step']}"
            if fault["phase"] == "play"
            else fault["phase"].upper()
        )
        print(
            f"ggp: warning: {fault['role']} ({seats[fault['role']].name}): {where}: "
            f"{fault['code']} ({fault['reason']})",
            file=sys.stderr,
            flush=True,
        )

    return report


# --- the parser ---------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse whose errors are the command's one-line errors."""

    def error(self, message):
        command = self.prog.removeprefix("ggp").strip()
        raise UserError(f"{command}: {message}" if command else message)


def _number(kind, low=None, high=None, low_open=False):
    """An argparse type: a number that a :class:`Param` of the same bounds accepts."""
    param = Param("value", kind, 0, "", low=low, high=high, low_open=low_open)

    def convert(text):
        try:
            return param.convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {param.accepts()}, got {text!r}") from None

    convert.__name__ = param.accepts()
    return convert


COUNT = _number(int, low=1)
NATURAL = _number(int, low=0)
SECONDS = _number(float, low=0, low_open=True)
CLOCK = _number(int, low=1)


def BUDGETS(text):
    """An argparse type: comma-separated budgets, each an integer >= 1."""
    try:
        budgets = [COUNT(part.strip()) for part in text.split(",") if part.strip()]
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(
            f"expected integers >= 1 separated by commas, got {text!r}"
        ) from None
    if not budgets:
        raise argparse.ArgumentTypeError("expected at least one budget")
    return budgets


def ALGO(text):
    """An argparse type: a solver as :func:`ggp.solvers.solve.parse_algo` reads it."""
    from ggp.solvers.solve import parse_algo

    try:
        parse_algo(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


PORT = _number(int, low=0, high=65535)


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """argparse's defaults in the help, once: not where the help already says
    its default, nor where there is none to say (a None, a flag's False)."""

    def _get_help_string(self, action):
        help_text = action.help or ""
        if "default" in help_text or action.default in (None, False, argparse.SUPPRESS):
            return help_text
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    formatter = _HelpFormatter
    parser = _Parser(
        prog="ggp", description="General Game Playing toolkit", formatter_class=formatter
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name, func, help_text, game=True):
        p = sub.add_parser(name, help=help_text, description=help_text, formatter_class=formatter)
        if game:
            p.add_argument("game", metavar="GAME", help="a name in games_gdl or a .kif path")
            max_bytes(p)
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.set_defaults(func=func)
        return p

    def max_bytes(p):
        p.add_argument(
            "--max-bytes",
            type=COUNT,
            default=MAX_BYTES,
            help="refuse a game file of more bytes, before reading it (default "
            f"{MAX_BYTES:,}, 15 times the largest public game, 68 kB; parsing "
            "takes 13-18 s and 220-350 MB a MB)",
        )

    def reasoner(p):
        p.add_argument(
            "--reasoner",
            choices=reasoner_names(),
            default=reasoner_names()[0],
            help="compiled (a propositional network in C), reference (bottom-up, the "
            "oracle) or demand (top-down with tabling, for games that do not ground)",
        )
        p.add_argument(
            "--ground-limit",
            type=COUNT,
            default=GROUND_LIMIT,
            help="ground rules (and half as many relaxed facts) the compiled reasoner may have "
            f"before the game falls back to the demand-driven one (default {GROUND_LIMIT:,})",
        )
        p.add_argument(
            "--ground-effort",
            type=COUNT,
            default=EFFORT,
            help="candidate atoms grounding's joins may examine before the game "
            f"falls back to the demand-driven reasoner (default {EFFORT:,})",
        )

    def view_options(p):
        p.add_argument(
            "--view",
            action="store_true",
            help="watch it in the browser: serves the viewer (its address is "
            "printed), which stays up after the end until Ctrl-C",
        )
        p.add_argument("--view-port", type=PORT, default=8147, help="the viewer's port (0: any)")
        p.add_argument("--view-host", default="127.0.0.1", help="the viewer's address")

    def max_histories(p):
        p.add_argument(
            "--max-histories",
            type=COUNT,
            default=HISTORY_LIMIT,
            help="refuse a game whose extensive form has more histories "
            f"(default {HISTORY_LIMIT:,}; a random-path estimate refuses at "
            "once past twice this)",
        )

    def clocks(p, start, play):
        p.add_argument(
            "--startclock", type=CLOCK, default=start, help="seconds the players have to prepare"
        )
        p.add_argument(
            "--playclock", type=CLOCK, default=play, help="seconds the players have for each move"
        )
        p.add_argument(
            "--max-steps",
            type=COUNT,
            default=MAX_STEPS,
            help="abort the match (ABORT to every player, the record says "
            "why) if the game has not ended after this many steps",
        )

    p = command("check", cmd_check, "validate a game, then test it by random playouts")
    p.add_argument("--playouts", type=NATURAL, default=20, help="random playouts to play")
    p.add_argument(
        "--max-steps",
        type=COUNT,
        default=1000,
        help="a playout longer than this fails the termination check",
    )
    p.add_argument(
        "--seconds",
        type=SECONDS,
        default=20.0,
        help="stop the playouts after this (default 20; at least one step is played)",
    )
    p.add_argument("--seed", type=NATURAL, default=0, help="seed of the random playouts")
    reasoner(p)

    p = command("info", cmd_info, "roles, GDL-II or not, rule and proposition counts")
    p.add_argument(
        "--tree",
        action="store_true",
        help="also the extensive-form counts: histories, terminals, information states per role",
    )
    p.add_argument(
        "--public",
        action="store_true",
        help="also the public states (seed "
        "001): how many, the histories of the largest, the seconds to build them",
    )
    p.add_argument(
        "--features",
        action="store_true",
        help="also the learners' encoding of "
        "each role's information states (ggp.solvers.features): size and, with --json, "
        "what each slot means",
    )
    max_histories(p)
    p.add_argument(
        "--ground-limit",
        type=COUNT,
        default=GROUND_LIMIT,
        help="ground rules of the game's build; the base and input propositions may "
        "take half as many relaxed facts, past which they are not counted",
    )
    p.add_argument(
        "--ground-effort",
        type=COUNT,
        default=EFFORT,
        help="candidate atoms the joins of the base and input propositions (the "
        "relaxed domain) may examine; past it they are not counted",
    )

    p = command(
        "solve",
        cmd_solve,
        "solve a small game by CFR, CFR+ or MCCFR over its "
        "extensive form; print the values and exploitability of the average policy",
    )
    p.add_argument(
        "--algo",
        type=ALGO,
        default="cfr+",
        metavar="ALGO",
        help="cfr, cfr+ (default), or mccfr: outcome-sampling Monte Carlo CFR "
        "(epsilon 0.6); mccfr:sampling=external, mccfr:epsilon=E",
    )
    p.add_argument(
        "--iterations", type=COUNT, default=None, help="iterations to run (default 1000)"
    )
    p.add_argument(
        "--seconds",
        type=SECONDS,
        default=None,
        help="run for this many seconds of iterations instead",
    )
    p.add_argument("--seed", type=NATURAL, default=0, help="seed of the sampling (mccfr)")
    p.add_argument(
        "--curve",
        default=None,
        metavar="OUT.csv",
        help="evaluate at log-spaced iteration counts; write the curve here "
        "and its log-log plot beside it (OUT.png)",
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="POLICY.json",
        help="save the average policy here (information state -> move -> probability)",
    )
    max_histories(p)

    p = command(
        "exploit",
        cmd_exploit,
        "exploitability (NashConv / 2) of a policy, "
        "given or learned by self-play (Smooth UCT, extensive-form UCT, NFSP), in "
        "goal points and in the game's unit",
    )
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--policy",
        metavar="FILE|uniform",
        help="a policy file (as ggp solve --out writes) or uniform",
    )
    source.add_argument(
        "--player",
        metavar="SPEC",
        help="learn the policy by self-play: smooth-uct, efg-uct, nfsp or "
        "mc-nfsp, e.g. smooth-uct:c=1.3846,d=0.002 (c on the utilities' "
        "-1..1 scale) or nfsp:eta=1; with --online, any player",
    )
    p.add_argument(
        "--episodes", type=COUNT, default=None, help="self-play episodes (default 1,000,000)"
    )
    p.add_argument(
        "--curve",
        default=None,
        metavar="OUT.csv",
        help="evaluate at log-spaced episode counts; write the learning curve "
        "here and its log-log plot beside it (OUT.png)",
    )
    p.add_argument(
        "--append",
        action="store_true",
        help="add this run to the --curve file; the plot shows every run in it",
    )
    p.add_argument("--seed", type=NATURAL, default=None, help="self-play seed (default 0)")
    p.add_argument(
        "--out", default=None, metavar="POLICY.json", help="save the learned average policy here"
    )
    p.add_argument(
        "--save",
        default=None,
        metavar="DIR",
        help="nfsp, mc-nfsp: save the learner here at every curve point and each "
        "minute of training (networks, memories, counters), to resume or to play "
        "(nfsp:load=DIR)",
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="nfsp, mc-nfsp: go on from the learner in --save DIR up to --episodes",
    )
    p.add_argument(
        "--online",
        action="store_true",
        help="score an online player (any GDL-II player, e.g. mccr, oos, ismcts): "
        "run it at every decision it can reach as every role and score the "
        "strategy it plays, averaged over --seeds (seed 001's evaluation)",
    )
    p.add_argument("--seeds", type=COUNT, default=None, help="--online: seeds (default 10)")
    p.add_argument(
        "--budgets",
        type=BUDGETS,
        default=None,
        metavar="N,N,...",
        help="--online: budgets a move, one row each (default: the budget the "
        "spec gives, iterations=N or simulations=N, else 100,1000,10000)",
    )
    max_histories(p)

    p = command("count", cmd_count, "exhaustive game-tree walk (perft), memoised on states")
    p.add_argument(
        "--depth", type=NATURAL, default=None, help="plies to walk (default: the whole tree)"
    )
    reasoner(p)

    p = command(
        "bench",
        cmd_bench,
        "random playouts from the initial state, timed "
        "(or, with --player, a search player's simulations)",
    )
    p.add_argument("--seconds", type=SECONDS, default=10.0, help="how long to measure")
    p.add_argument(
        "--player",
        default=None,
        metavar="SPEC",
        help="measure this player's simulations per second instead",
    )
    p.add_argument("--seed", type=NATURAL, default=1, help="seed of the random playouts")
    reasoner(p)

    p = command(
        "match",
        cmd_match,
        "run a match as a game manager: players in this "
        "process or GGP players over HTTP; recorded in the database",
    )
    p.add_argument(
        "--player",
        action="append",
        required=True,
        metavar="SPEC",
        help="one per role, in role order: a player spec or http://host:port",
    )
    clocks(p, 10, 10)
    p.add_argument(
        "--seed",
        type=NATURAL,
        default=None,
        help="seed of the players and of the moves chosen for faulty players",
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="MATCH.json",
        help="also write the record (ggp.org match JSON) here",
    )
    p.add_argument(
        "--db",
        default=None,
        help="SQLite database (default: the user's data directory, ggp/matches.sqlite)",
    )
    p.add_argument("--quiet", action="store_true", help="print only faults and goals")
    view_options(p)

    p = command("play", cmd_play, "play a local match and print it")
    p.add_argument(
        "players", nargs="+", metavar="PLAYER", help="one player spec per role, e.g. random, legal"
    )
    p.add_argument("--seed", type=NATURAL, default=None, help="seed of the players")
    p.add_argument("--matches", type=COUNT, default=1, help="matches to play")
    clocks(p, 3, 1)
    p.add_argument("--quiet", action="store_true", help="print only the goals")

    p = command(
        "study",
        cmd_study,
        "run a study of many matches from a YAML file; resumes when started again",
        game=False,
    )
    p.add_argument("study", metavar="STUDY.yaml")
    p.add_argument("--workers", type=COUNT, default=None, help="processes (default: cores)")
    p.add_argument(
        "--executor",
        choices=("process", "ray"),
        default=None,
        help="default: the study's, else process",
    )
    p.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDRESS",
        help="with --executor ray: the cluster to use, e.g. auto or "
        "ray://head:10001 (default: $RAY_ADDRESS, else a local cluster)",
    )
    p.add_argument(
        "--db",
        default=None,
        help="SQLite database (default: the user's data directory, ggp/matches.sqlite)",
    )
    view_options(p)

    p = command(
        "replay",
        cmd_replay,
        "re-check a match record (ggp.org JSON) with the "
        "rules: legal moves, states, terminal, goals; exit 1 on any problem",
        game=False,
    )
    p.add_argument("match", metavar="MATCH.json")
    p.add_argument(
        "--game",
        default=None,
        metavar="GAME",
        help="the game (default: the record's gameSource or gdl)",
    )
    max_bytes(p)

    p = command(
        "view",
        cmd_view,
        "serve the browser viewer on this machine: the stored "
        "matches (search, filters, a stepper with boards), record files, a study's "
        "tables; Ctrl-C stops it",
        game=False,
    )
    p.add_argument(
        "records",
        nargs="*",
        metavar="RECORD.json",
        help="match records (ggp.org match JSON) to list",
    )
    p.add_argument(
        "--db",
        default=None,
        help="SQLite database (default: the user's data "
        "directory, ggp/matches.sqlite, unless records or a study are given)",
    )
    p.add_argument(
        "--study",
        default=None,
        metavar="DIR",
        help="a study's out folder: its scores, ranking and plots",
    )
    p.add_argument("--port", type=PORT, default=8147, help="the port (0: any free one)")
    p.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (loopback by default)"
    )

    p = command(
        "serve",
        cmd_serve,
        "serve a player to GGP game managers over HTTP, "
        "logging one line per message; Ctrl-C stops it",
        game=False,
    )
    p.add_argument("player", metavar="PLAYER", help="a player spec, e.g. uct or random")
    p.add_argument("--port", type=PORT, default=9147, help="the port (0: any free one)")
    p.add_argument(
        "--host", default="127.0.0.1", help="the address to listen on (0.0.0.0 for every interface)"
    )
    p.add_argument("--name", default=None, help="the name INFO gives (default: the player's)")
    p.add_argument(
        "--margin",
        type=_number(float, low=0),
        default=DEFAULT_MARGIN,
        help="seconds kept back from every clock for the reply to travel; the "
        "player thinks until the clock less this and its own margin",
    )
    max_bytes(p)  # a START's rules

    command("players", cmd_players, "list the players and their parameters", game=False)
    return parser


def _error_object(error) -> dict:
    """The JSON form of an error: kind, message and, for a located one, where."""
    if isinstance(error, gdl.Diagnostic):
        pos = error.pos
        return {
            "kind": error.kind,
            "message": error.message,
            "file": pos.path,
            "line": pos.line,
            "column": pos.column,
        }
    return {
        "kind": getattr(error, "kind", "game"),
        "message": str(error).splitlines()[0],
        "file": None,
        "line": None,
        "column": None,
    }


def _fail(as_json: bool, error) -> int:
    """Print one error (a Diagnostic or an exception) and return status 1."""
    if as_json:
        print(json.dumps({"error": _error_object(error)}))
    else:
        print(f"ggp: {str(error).splitlines()[0]}", file=sys.stderr)
    return 1


class _BuildProgress(logging.Handler):
    """Prints what a game's build is doing (the ``ggp.build`` log) once the
    command has run ``after`` seconds, a line a second at most."""

    def __init__(self, after: float = 2.0):
        super().__init__(logging.INFO)
        self.after = after
        self.restart()

    def restart(self):
        self.start = time.monotonic()
        self.last = -1.0

    def emit(self, record):
        now = time.monotonic() - self.start
        if now >= self.after and now - self.last >= 1.0:
            self.last = now
            print(
                f"ggp: building ({now:.0f} s): {record.getMessage()}", file=sys.stderr, flush=True
            )


_PROGRESS = _BuildProgress()


def _one_line_warning(message, category, filename, lineno, line=None):
    return f"ggp: warning: {message}\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    warnings.formatwarning = _one_line_warning
    debug = bool(os.environ.get("GGP_DEBUG"))
    logging.basicConfig(
        level=logging.DEBUG if debug else logging.WARNING,
        format="ggp: %(message)s"
        if not debug
        else "%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    as_json = "--json" in argv
    build_log = logging.getLogger("ggp.build")
    if _PROGRESS not in build_log.handlers:
        build_log.addHandler(_PROGRESS)
        build_log.setLevel(logging.INFO)
        build_log.propagate = False
    _PROGRESS.restart()
    args = None
    try:
        args = build_parser().parse_args(argv)
        return args.func(args)
    except gdl.GdlError as exc:
        return _fail(as_json, exc.first)
    except RuleError as exc:
        game = getattr(args, "loaded", None)
        return _fail(as_json, game.diagnostic(exc) if game is not None else exc)
    except Interrupted as exc:
        _fail(as_json, exc)
        return 130
    except (GameError, UserError) as exc:
        return _fail(as_json, exc)
    except KeyboardInterrupt:
        print("ggp: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (ggp ... | head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    except Exception as exc:  # a bug of ours: one line, the traceback on request
        if debug:
            traceback.print_exc()
        error = UserError(
            f"internal error: {type(exc).__name__}: {str(exc).strip()} (GGP_DEBUG=1 shows where)",
            "internal",
        )
        return _fail(as_json, error)


if __name__ == "__main__":
    sys.exit(main())
