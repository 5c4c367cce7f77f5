"""The commands of imperfect information: solve (CFR, CFR+, MCCFR) and exploit (a policy's
exploitability, learned by self-play or played online)."""

from __future__ import annotations

import time
from pathlib import Path

from ggp.progress import TIMED, Progress
from ggp.solvers.efg import TreeTooLarge, build_tree
from ggp.specs import Spec
from matches.cli.common import (
    ALGO,
    BUDGETS,
    COUNT,
    NATURAL,
    SECONDS,
    Commands,
    Interrupted,
    UserError,
    as_lines,
    emit,
    load_args_game,
    tree_of,
    writable,
)
from players.params import settings


def cmd_solve(args) -> int:
    from ggp.solvers.cfr import expected_values, save_policy
    from ggp.solvers.solve import solve
    from players.learning.curves import checkpoints

    if args.seconds is not None and args.iterations is not None:
        raise UserError("give --iterations or --seconds, not both")
    iterations = 1000 if args.seconds is None and args.iterations is None else args.iterations
    for path in (args.curve, args.out):
        if path:
            writable(path)
    game = load_args_game(args)
    start = time.perf_counter()
    tree = tree_of(args, game)
    points: list[int] | tuple[()] = ()
    if args.curve:
        points = checkpoints(iterations)[:-1] if iterations else checkpoints(10**15)[:-1]
    curve: list[tuple] = []
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
                tree,
                args.algo,
                iterations,
                seconds=args.seconds,
                seed=args.seed,
                points=points,
                curve=curve,
                progress=progress,
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
    lines = as_lines(data)
    if args.curve:
        _write_solve_curve(args, game, tree, curve)
        lines += [f"{'iterations':>12} {'seconds':>9} exploitability ({tree.display.name})"]
        lines += [
            f"{n:>12} {t:>9.3f} {tree.in_units(g)['exploitability_in_unit']:.6f}"
            for n, t, g in curve
        ]
    emit(args, data, "\n".join(lines))
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


#: ``ggp exploit``'s three modes (a policy given; learned by self-play with
#: ``--player``; an online player scored with ``--player --online``) and the
#: flags each takes besides the game's.
EXPLOIT_MODES = {
    "policy": (),
    "self-play": ("--episodes", "--curve", "--append", "--seed", "--out", "--save", "--resume"),
    "online": ("--online", "--curve", "--append", "--seeds", "--budgets"),
}
#: flags that mean nothing without another
EXPLOIT_NEEDS = {
    "--online": ("--player", "--player SPEC"),
    "--append": ("--curve", "--curve"),
    "--resume": ("--save", "--save DIR"),
}


def exploit_mode(args) -> str:
    """The mode of a ``ggp exploit`` command line, every flag given checked
    against it: one given in another mode is one line saying where it goes."""
    flags = dict.fromkeys(f for takes in EXPLOIT_MODES.values() for f in ("--player", *takes))
    given = [f for f in flags if getattr(args, f[2:]) not in (None, False)]
    for flag, (needed, shown) in EXPLOIT_NEEDS.items():
        if flag in given and needed not in given:
            raise UserError(f"{flag} goes with {shown}")
    mode = "online" if args.online else "self-play" if args.player is not None else "policy"
    stray = [f for f in given if f not in ("--player", *EXPLOIT_MODES[mode])]
    if stray:
        why = {f: _misplaced(f, mode) for f in stray}
        first = why[stray[0]]
        raise UserError(f"{', '.join(f for f in stray if why[f] == first)}: {first}")
    return mode


def _misplaced(flag: str, mode: str) -> str:
    """Where a flag given in the wrong ``ggp exploit`` mode goes."""
    if flag not in EXPLOIT_MODES["self-play"]:
        return "only with --online"
    if mode == "policy":
        return "only with --player, not with --policy"
    return "for self-play, not with --online"


def cmd_exploit(args) -> int:
    from ggp.solvers.cfr import expected_values, exploitability, load_policy, uniform_policy

    if exploit_mode(args) == "online":
        return _exploit_online(args)
    game = load_args_game(args)
    if args.player is not None:
        try:
            tree = build_tree(game, limit=args.max_histories, estimate=True)
        except TreeTooLarge as exc:
            return _exploit_sampled(args, game, exc)
        return _exploit_selfplay(args, game, tree)
    tree = tree_of(args, game)
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
    emit(args, data, "\n".join(as_lines(data)))
    return 0


ONLINE_FIELDS = (
    "game",
    "player",
    "budget",
    "seeds",
    "unit",
    "exploitability",
    "exploitability_in_unit",
    "seconds",
)


def _exploit_online(args) -> int:
    """``ggp exploit --online``: the exploitability of an online player's
    strategy, run at every decision it can reach (players.imperfect.evaluation)."""
    from players.imperfect.evaluation import budget_param, online_exploitability
    from players.imperfect.online import View
    from players.learning.curves import plot_online, read_curve, write_curve
    from players.registry import make, player_class

    if args.curve:
        writable(args.curve)
    spec = _player_spec(args)
    try:
        player = make(spec)  # the spec, checked before any work
    except ValueError as exc:
        raise UserError(str(exc), "player") from None
    budgets = _online_budgets(args, player, budget_param(player_class(spec.name)), spec.params)
    game = load_args_game(args)
    view = View(tree_of(args, game))
    seeds = args.seeds or 10
    rows: list[tuple] = []
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
            plot_online(read_curve(args.curve), Path(args.curve).with_suffix(".png"))

    try:
        with Progress(
            f"{args.player} {game.name}",
            "run",
            len(budgets) * seeds * len(view.tree.players),
            quiet=args.json,
        ) as progress:
            online_exploitability(game, view, spec, seeds, budgets, rows, progress)
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
        f"{r['budget'] or '-':>8} {r['exploitability_in_unit']:>24.6f} {r['seconds']:>9.2f}"
        for r in records
    ]
    emit(args, data, "\n".join(lines))
    return 0


def _player_spec(args) -> Spec:
    """``--player``, read here once (UserError for a malformed spec)."""
    try:
        return Spec.parse(args.player)
    except ValueError as exc:
        raise UserError(str(exc), "player") from None


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


def _exploit_selfplay(args, game, tree) -> int:
    """``ggp exploit --player``: learn by self-play, then score the average policy."""
    from ggp.solvers.cfr import save_policy
    from players.learning.curves import checkpoints
    from players.learning.nfsp import LEARNERS, NFSP
    from players.learning.selfplay import learner_for, train

    spec = _player_spec(args)
    episodes = 1_000_000 if args.episodes is None else args.episodes
    if args.save and spec.name not in LEARNERS:
        raise UserError(
            "--save: only nfsp and mc-nfsp learners are saved (the others "
            "train in seconds: --out saves their policy)"
        )
    for path in (args.curve, args.out, args.save):
        if path:
            writable(path)
    learner, earlier = None, 0
    if args.resume:
        try:
            learner = NFSP.load(tree, args.save)
            earlier = len(learner.curve) if args.append else 0  # already in the file
        except (OSError, ValueError, KeyError) as exc:
            raise UserError(f"{args.save}: no learner to resume ({exc})", "io") from None
    try:
        learner = learner or learner_for(
            tree, spec, {} if args.seed is None else {"seed": args.seed}
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
    lines = as_lines(data)
    if args.curve:
        lines += [f"{'episodes':>12} {'seconds':>9} exploitability ({tree.display.name})"]
        lines += [
            f"{p.episodes:>12} {p.seconds:>9.3f} "
            f"{tree.in_units(p.exploitability)['exploitability_in_unit']:.6f}"
            for p in learner.curve
        ]
    emit(args, data, "\n".join(lines))
    return 0


def _exploit_sampled(args, game, too_large) -> int:
    """``ggp exploit --player nfsp`` on a game whose tree is ``too_large``:
    NFSP learns by sampling the game (saved with ``--save``, resumed with
    ``--resume``); exploitability is not measured, and the output says what is."""
    from players.learning.nfsp_sampled import SampledNFSP
    from players.learning.selfplay import train

    spec = _player_spec(args)
    if spec.name != "nfsp":
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
    if args.save:
        writable(args.save)
    try:
        if args.resume:
            learner = SampledNFSP.load(game, args.save)
        else:
            learner = SampledNFSP(
                game,
                settings(
                    SampledNFSP.declared,
                    {**spec.params, **({} if args.seed is None else {"seed": args.seed})},
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
    emit(args, data, "\n".join(as_lines(data)))
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


def add_commands(cli: Commands) -> None:
    """Add the solve, exploit commands."""
    command = cli.command
    max_histories = cli.max_histories
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
        "strategy it plays, averaged over --seeds (the evaluation of Šustr, Kovařík "
        "and Lisý, Monte Carlo Continual Resolving)",
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
