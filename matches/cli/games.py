"""The commands about a game alone: check, info, count and bench."""

from __future__ import annotations

import json
import sys
import time

import gdl
from ggp import GameError
from ggp.progress import TIMED, Progress
from ggp.reasoners.ground import EFFORT, GROUND_LIMIT
from ggp.tools.check import check_playouts
from ggp.tools.count import count
from matches.cli.common import (
    COUNT,
    NATURAL,
    SECONDS,
    Commands,
    UserError,
    as_lines,
    emit,
    error_object,
    limits,
    load_args_game,
    machine,
    tree_of,
)


def cmd_check(args) -> int:
    try:
        game = load_args_game(args)
    except gdl.GdlError as exc:
        errors = [d for d in exc.diagnostics if d.severity == "error"]
        if args.json:
            print(
                json.dumps(
                    {
                        "game": args.game,
                        "valid": False,
                        "error": error_object(errors[0]),
                        "errors": [error_object(d) for d in errors],
                    },
                    indent=2,
                )
            )
        else:
            for diagnostic in exc.diagnostics:
                print(f"ggp: {diagnostic}", file=sys.stderr)
        return 1
    report = check_playouts(
        machine(args, game),
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
            error=error_object(diagnostic),
            errors=[error_object(diagnostic)],
            failed_playout=failed,
        )
        if args.json:
            print(json.dumps(data, indent=2, default=str))
        else:
            print(f"ggp: {diagnostic}", file=sys.stderr)
        return 1
    data["errors"] = []
    emit(
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

    game = load_args_game(args)
    try:  # the relaxed domain, within --ground-limit facts and --ground-effort
        base, inputs = base_and_input(
            game.rules, args.ground_limit // 2, Effort(args.ground_effort)
        )
        counted: tuple[int | None, int | None] = (len(base), len(inputs))
        why = None
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
        tree = tree_of(args, game)
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
        as_lines({k: v for k, v in data.items() if k != "features" and (v or k != "warnings")})
    )
    for f in data.get("features", ()):
        text += (
            f"\nfeatures of {f['role']}: {f['size']} slots: {f['depth']} steps x "
            f"({len(f['moves'])} moves + {len(f['terms'])} percepts) + "
            f"{len(f['moves'])} legal moves (--json lists them)"
        )
    emit(args, data, text)
    return 0


def cmd_count(args) -> int:
    game = load_args_game(args)
    start = time.perf_counter()
    result = count(machine(args, game), args.depth)
    data = {
        "game": game.name,
        "reasoner": args.reasoner,
        "depth": args.depth,
        **result,
        "seconds": round(time.perf_counter() - start, 3),
    }
    emit(args, data, "\n".join(as_lines(data)))
    return 0


def cmd_bench(args) -> int:
    game = load_args_game(args)
    if args.player:
        from players.bench import bench_player

        try:
            data = bench_player(game, args.player, args.seconds, args.reasoner)
        except ValueError as exc:
            raise UserError(str(exc), "player") from None
    else:
        from ggp.tools.bench import bench

        with Progress(
            f"bench {game.name}", "s", args.seconds, quiet=args.json, bar_format=TIMED
        ) as progress:
            data = bench(game, args.reasoner, args.seconds, args.seed, limits(args), progress)
    emit(args, data, "\n".join(as_lines(data)))
    return 0


def add_commands(cli: Commands) -> None:
    """Add the check, info, count, bench commands."""
    command = cli.command
    reasoner = cli.reasoner
    max_histories = cli.max_histories
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
        help="measure this player's simulations per second instead, on the reasoner "
        "its spec or --reasoner names (built first, with the default grounding limits)",
    )
    p.add_argument("--seed", type=NATURAL, default=1, help="seed of the random playouts")
    reasoner(p)
