"""The ``ggp`` command.

Every command takes ``--json`` for scripts.  GAME is a name in games_gdl or a
path to a .kif file.  Errors in the user's input (an invalid game, a bad
player spec) print one line and exit 1; they never print a traceback.

The command line lives in ``matches`` because it drives everything below it
(gdl, ggp, players, matches) and nothing below may import what is above.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import gdl
from ggp import GameError, load_game
from ggp.board import render
from ggp.check import check_playouts
from ggp.count import count
from ggp.game import REASONERS


class UserError(Exception):
    """A one-line complaint about the user's input."""


def _emit(args, data: dict, text: str):
    print(json.dumps(data, indent=2, default=str) if args.json else text)


def _load(args):
    return load_game(args.game)


# --- commands ----------------------------------------------------------------

def cmd_check(args) -> int:
    try:
        game = load_game(args.game)
    except gdl.GdlError as exc:
        data = {"game": args.game, "valid": False,
                "errors": [str(d) for d in exc.diagnostics], "warnings": []}
        _emit(args, data, "\n".join(data["errors"]))
        return 1
    report = check_playouts(game.state_machine(args.reasoner), args.playouts,
                            max_steps=args.max_steps, seconds=args.seconds, seed=args.seed)
    valid = not report["errors"]
    data = {"game": game.name, "valid": valid, "errors": report["errors"],
            "warnings": [str(w) for w in game.warnings], **report}
    lines = [str(w) for w in game.warnings] + report["errors"]
    lines.append(f"{game.name}: {'valid' if valid else 'INVALID'}: {report['playouts']} random "
                 f"playouts ({report['steps']} steps), mean depth {report['mean_depth']:.1f}, "
                 f"max depth {report['max_depth']}")
    _emit(args, data, "\n".join(lines))
    return 0 if valid else 1


def cmd_info(args) -> int:
    from ggp.domains import base_and_input
    game = _load(args)
    base, inputs = base_and_input(game.rules)
    relations = {gdl.ast.name_of(r.head) for r in game.rules}
    data = {"game": game.name, "roles": list(game.roles), "gdl2": game.is_gdl2,
            "rules": sum(1 for r in game.rules if r.body),
            "facts": sum(1 for r in game.rules if not r.body),
            "relations": len(relations), "base_propositions": len(base),
            "input_propositions": len(inputs),
            "warnings": [str(w) for w in game.warnings]}
    if args.tree:
        from ggp.efg import build_tree
        tree = build_tree(game)
        data.update(histories=tree.histories, terminals=tree.terminals,
                    information_states=tree.information_states())
    text = "\n".join(f"{k}: {', '.join(v) if isinstance(v, list) else v}"
                     for k, v in data.items() if k != "warnings" or v)
    _emit(args, data, text)
    return 0


def cmd_count(args) -> int:
    game = _load(args)
    start = time.perf_counter()
    result = count(game.state_machine(args.reasoner), args.depth)
    data = {"game": game.name, "reasoner": args.reasoner, "depth": args.depth, **result,
            "seconds": round(time.perf_counter() - start, 3)}
    _emit(args, data, "\n".join(f"{k}: {v}" for k, v in data.items()))
    return 0


def cmd_solve(args) -> int:
    from ggp.cfr import expected_values, exploitability, save_policy, solve
    from ggp.efg import build_tree
    game = _load(args)
    start = time.perf_counter()
    tree = build_tree(game)
    solver = solve(tree, args.algo, args.iterations)
    policy = solver.average_policy()
    if args.out:
        save_policy(tree, policy, args.out)
    gap = exploitability(tree, policy)
    data = {"game": game.name, "algo": args.algo, "iterations": args.iterations,
            "unit": tree.unit.name,
            "values": dict(zip(tree.players, expected_values(tree, policy))),
            "exploitability": gap, "exploitability_goal_points": gap * tree.unit.scale,
            "policy": args.out, "seconds": round(time.perf_counter() - start, 3)}
    _emit(args, data, "\n".join(f"{k}: {v}" for k, v in data.items()))
    return 0


def cmd_exploit(args) -> int:
    from ggp.cfr import expected_values, exploitability, load_policy, uniform_policy
    from ggp.efg import build_tree
    if args.player is None:
        given = [flag for flag, value in (("--episodes", args.episodes), ("--curve", args.curve),
                                          ("--append", args.append or None),
                                          ("--seed", args.seed), ("--out", args.out))
                 if value is not None]
        if given:
            raise UserError(f"{', '.join(given)}: only with --player, not with --policy")
    game = _load(args)
    tree = build_tree(game)
    if args.player is not None:
        return _exploit_selfplay(args, game, tree)
    if args.policy == "uniform":
        policy = uniform_policy(tree)
    else:
        try:
            policy = load_policy(tree, args.policy)
        except (OSError, ValueError) as exc:
            raise UserError(f"{args.policy}: {exc}") from exc
    gap = exploitability(tree, policy)
    scale, offset = tree.unit.scale, tree.unit.offset
    data = {"game": game.name, "policy": args.policy,
            "values": {r: offset + scale * v
                       for r, v in zip(tree.players, expected_values(tree, policy))},
            "exploitability": gap * scale}
    if args.chips:
        data.update(unit=tree.unit.name, exploitability_unit=gap)
    _emit(args, data, "\n".join(f"{k}: {v}" for k, v in data.items()))
    return 0


def _exploit_selfplay(args, game, tree) -> int:
    """``ggp exploit --player``: learn by self-play, then score the average policy."""
    from ggp.cfr import save_policy
    from players.selfplay import checkpoints, curve_rows, plot_curves, train, write_curve
    episodes = 1_000_000 if args.episodes is None else args.episodes
    if episodes < 1:
        raise UserError(f"--episodes must be positive, got {episodes}")
    if args.append and not args.curve:
        raise UserError("--append goes with --curve")
    if args.curve and not Path(args.curve).parent.is_dir():
        raise UserError(f"{args.curve}: no such directory")
    try:
        learner = train(tree, args.player, episodes=episodes,
                        points=checkpoints(episodes) if args.curve else [episodes],
                        seed=args.seed)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if args.curve:
        try:
            write_curve(args.curve, curve_rows(learner, game.name), args.append)
        except (OSError, ValueError) as exc:
            raise UserError(f"{args.curve}: {exc}") from None
        plot_curves(args.curve, Path(args.curve).with_suffix(".png"))
    if args.out:
        save_policy(tree, learner.average_policy(), args.out)
    gap = learner.curve[-1].exploitability
    data = {"game": game.name, "player": learner.spec, "seed": learner.params["seed"],
            "episodes": learner.episodes, "exploitability": gap * tree.unit.scale,
            "exploitability_unit": gap, "unit": tree.unit.name,
            "episodes_per_sec": round(learner.episodes / learner.seconds, 1),
            "seconds": round(learner.seconds, 3), "curve": args.curve, "policy": args.out}
    lines = [f"{k}: {v}" for k, v in data.items()]
    if args.curve:
        lines += [f"{'episodes':>12} {'seconds':>9} exploitability ({tree.unit.name})"]
        lines += [f"{p.episodes:>12} {p.seconds:>9.3f} {p.exploitability:.6f}"
                  for p in learner.curve]
    _emit(args, data, "\n".join(lines))
    return 0


def _seats(game, specs, seed) -> dict:
    """A seat per non-random role, in role order: a remote player for an
    ``http://`` spec, else a registered player in this process."""
    import players as registry
    from matches.seats import LocalSeat, RemoteSeat
    roles = [r for r in game.roles if r != "random"]
    if len(specs) != len(roles):
        raise UserError(f"{game.name} has {len(roles)} role(s) ({', '.join(roles)}): "
                        f"give one player each, got {len(specs)}")
    seats = {}
    for i, (role, spec) in enumerate(zip(roles, specs)):
        try:
            if spec.startswith("http://"):
                seats[role] = RemoteSeat(spec)
            else:
                seats[role] = LocalSeat(registry.make(
                    spec, **({} if seed is None else {"seed": seed * 1000 + i})), spec)
        except ValueError as exc:
            raise UserError(str(exc)) from None
    return seats


def _summary(record) -> dict:
    return {"match_id": record.match_id, "players": record.players, "goals": record.goals,
            "steps": len(record.moves),
            "moves": [[gdl.to_kif(m) for m in joint] for joint in record.moves],
            "errors": record.errors}


def cmd_play(args) -> int:
    from matches.manager import run_match
    game = _load(args)
    matches = []
    for m in range(args.matches):
        seed = None if args.seed is None else args.seed + m
        on_step = None if args.json or args.quiet else _printer(game)
        record = run_match(game, _seats(game, args.players, seed), seed=seed,
                           play_clock=args.playclock, on_step=on_step)
        matches.append(_summary(record))
        if not args.json:
            print("goals: " + ", ".join(f"{r} {g}" for r, g in record.goals.items()))
    if args.json:
        print(json.dumps({"game": game.name, "matches": matches}, indent=2))
    return 0


def cmd_match(args) -> int:
    from matches.manager import run_match
    from matches.records import MatchStore, write_json
    game = _load(args)
    on_step = None if args.json or args.quiet else _printer(game)
    record = run_match(game, _seats(game, args.player, args.seed), seed=args.seed,
                       start_clock=args.startclock, play_clock=args.playclock,
                       on_step=on_step)
    if args.out:
        write_json(record, args.out)
    with MatchStore(args.db) as store:
        store.add(record)
    faults = [f"step {i + 1} {role}: {e}" for i, step in enumerate(record.errors)
              for role, e in zip(record.roles, step) if e]
    text = "\n".join(faults + ["goals: " + ", ".join(f"{r} {g}"
                                                     for r, g in record.goals.items())])
    _emit(args, {"game": game.name, **_summary(record)}, text)
    return 0


def cmd_bench(args) -> int:
    if args.player:
        data = _bench_player(_load(args), args.player, args.seconds)
    else:
        from ggp.bench import bench
        data = bench(_load(args), args.reasoner, args.seconds, args.seed)
    _emit(args, data, "\n".join(f"{k}: {v}" for k, v in data.items()))
    return 0


def cmd_study(args) -> int:
    from matches.study import load_study, ranking, run_study, summary, write_tables
    try:
        study = load_study(args.study)
    except (OSError, ValueError) as exc:
        raise UserError(str(exc)) from None
    rows = run_study(study, args.workers, db=args.db, executor=args.executor or study.executor,
                     progress=None if args.json else sys.stderr)
    table = summary(rows)
    ranks = ranking(rows, list(study.players))
    text = write_tables(study, table, ranks)
    _emit(args, {"study": study.name, "out": str(study.out), "matches": len(rows),
                 "rows": table, "ranking": ranks}, text)
    return 0


def cmd_replay(args) -> int:
    from matches.records import read_json, replay
    try:
        data = read_json(args.match)
        report = replay(data, _load(args) if args.game else None)
    except KeyError as exc:
        raise UserError(f"{args.match}: not a match record: no key {exc}") from None
    except (OSError, ValueError) as exc:
        raise UserError(f"{args.match}: {exc}") from None
    verdict = ["replay: OK"] if report.ok else report.problems
    _emit(args, {"match": args.match, "matchId": data.get("matchId"), "ok": report.ok,
                 "problems": report.problems, "steps": len(data["moves"])},
          "\n".join(report.lines + verdict))
    return 0 if report.ok else 1


def cmd_serve(args) -> int:
    import logging

    from matches.server import serve
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    try:
        serve(args.player, args.host, args.port, args.name, args.margin)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    except OSError as exc:
        raise UserError(f"cannot listen on {args.host}:{args.port}: "
                        f"{exc.strerror or exc}") from None
    return 0


def _bench_player(game, spec, seconds) -> dict:
    """Simulations per second of a search player thinking about the first move."""
    import players as registry
    try:
        player = registry.make(spec)
    except ValueError as exc:
        raise UserError(str(exc)) from None
    if not hasattr(player, "think"):
        raise UserError(f"player {spec!r} does not search: nothing to measure")
    role = next(r for r in game.roles if r != "random")
    player.start(game, role, 0.0, seconds)
    start = time.perf_counter()
    player.think(time.monotonic() + seconds)
    elapsed = time.perf_counter() - start
    return {"game": game.name, "player": spec, "simulations": player.last_simulations,
            "seconds": round(elapsed, 3),
            "simulations_per_sec": round(player.last_simulations / elapsed, 1)}


def _printer(game):
    def show(record, sm, state):
        if record.moves:
            joint = record.moves[-1]
            moves = ", ".join(f"{r} {gdl.to_kif(m)}" for r, m, e in
                              zip(record.roles, joint, record.errors[-1]))
            faults = [f"{r}: {e}" for r, e in zip(record.roles, record.errors[-1]) if e]
            print(f"step {len(record.moves)}: {moves}"
                  + (f"   [{'; '.join(faults)}]" if faults else ""))
        board = render(record.states[-1])
        if board:
            print(board)
    return show


# --- the parser ---------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ggp", description="General Game Playing toolkit")
    sub = parser.add_subparsers(dest="command", required=True)

    def command(name, func, help_text):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("game", metavar="GAME", help="a name in games_gdl or a .kif path")
        p.add_argument("--json", action="store_true", help="print one JSON object")
        p.set_defaults(func=func)
        return p

    def reasoner(p):
        p.add_argument("--reasoner", choices=REASONERS, default=REASONERS[0])

    p = command("check", cmd_check, "validate a game, then test it by random playouts")
    p.add_argument("--playouts", type=int, default=20)
    p.add_argument("--max-steps", type=int, default=1000,
                   help="a playout longer than this fails the termination check")
    p.add_argument("--seconds", type=float, default=None, help="stop the playouts after this")
    p.add_argument("--seed", type=int, default=0)
    reasoner(p)

    p = command("info", cmd_info, "roles, GDL-II or not, rule and proposition counts")
    p.add_argument("--tree", action="store_true", help="also the extensive-form counts: "
                   "histories, terminals, information states per role")

    p = command("solve", cmd_solve, "solve a small game by CFR or CFR+ over its "
                "extensive form; print the values and exploitability of the average policy")
    p.add_argument("--algo", choices=("cfr", "cfr+"), default="cfr+")
    p.add_argument("--iterations", type=int, default=1000)
    p.add_argument("--out", default=None, metavar="POLICY.json",
                   help="save the average policy here (information state -> move -> probability)")

    p = command("exploit", cmd_exploit, "exploitability (NashConv / 2) of a policy, "
                "given or learned by self-play (Smooth UCT, extensive-form UCT), in goal points")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--policy", metavar="FILE|uniform",
                        help="a policy file (as ggp solve --out writes) or uniform")
    source.add_argument("--player", metavar="SPEC",
                        help="learn the policy by self-play: smooth-uct or efg-uct, e.g. "
                        "smooth-uct:c=18,d=0.002 (c in the game's unit)")
    p.add_argument("--chips", action="store_true",
                   help="also in the game's unit (its '; efg:' comment line)")
    p.add_argument("--episodes", type=int, default=None,
                   help="self-play episodes (default 1,000,000)")
    p.add_argument("--curve", default=None, metavar="OUT.csv",
                   help="evaluate at log-spaced episode counts; write the learning curve "
                   "here and its log-log plot beside it (OUT.png)")
    p.add_argument("--append", action="store_true",
                   help="add this run to the --curve file; the plot shows every run in it")
    p.add_argument("--seed", type=int, default=None, help="self-play seed (default 0)")
    p.add_argument("--out", default=None, metavar="POLICY.json",
                   help="save the learned average policy here")

    p = command("count", cmd_count, "exhaustive game-tree walk (perft), memoised on states")
    p.add_argument("--depth", type=int, default=None, help="plies to walk (default: all)")
    reasoner(p)

    p = command("bench", cmd_bench, "random playouts from the initial state, timed "
                "(or, with --player, a search player's simulations)")
    p.add_argument("--seconds", type=float, default=10.0)
    p.add_argument("--player", default=None, metavar="SPEC",
                   help="measure this player's simulations per second instead")
    p.add_argument("--seed", type=int, default=1)
    reasoner(p)

    p = command("match", cmd_match, "run a match as a game manager: players in this "
                "process or GGP players over HTTP; recorded in the database")
    p.add_argument("--player", action="append", required=True, metavar="SPEC",
                   help="one per role, in role order: a player spec or http://host:port")
    p.add_argument("--startclock", type=float, default=10.0)
    p.add_argument("--playclock", type=float, default=10.0)
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--out", default=None, metavar="MATCH.json",
                   help="also write the record (ggp.org match JSON) here")
    p.add_argument("--db", default=None, help="SQLite database (default: the user's data "
                   "directory, ggp/matches.sqlite)")
    p.add_argument("--quiet", action="store_true", help="print only faults and goals")

    p = command("play", cmd_play, "play a local match and print it")
    p.add_argument("players", nargs="+", metavar="PLAYER",
                   help="one player spec per role, e.g. random, legal")
    p.add_argument("--seed", type=int, default=None)
    p.add_argument("--matches", type=int, default=1)
    p.add_argument("--playclock", type=float, default=10.0)
    p.add_argument("--quiet", action="store_true", help="print only the goals")

    p = sub.add_parser("study", help="run a study of many matches from a YAML file",
                       description="run a study (see matches/study.py); resumes when "
                                   "started again")
    p.add_argument("study", metavar="STUDY.yaml")
    p.add_argument("--workers", type=int, default=None, help="processes (default: cores)")
    p.add_argument("--executor", choices=("process", "ray"), default=None,
                   help="default: the study's, else process")
    p.add_argument("--db", default=None, help="SQLite database (default: the user's data "
                   "directory, ggp/matches.sqlite)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_study)

    p = sub.add_parser("replay", help="re-check a match record (ggp.org JSON) with the rules",
                       description="replay a match record step by step: legal moves, states, "
                                   "terminal, goals; exit 1 on any problem")
    p.add_argument("match", metavar="MATCH.json")
    p.add_argument("--game", default=None, metavar="GAME",
                   help="the game (default: the record's gameSource or gdl)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("serve", help="serve a player to GGP game managers over HTTP",
                       description="an HTTP GGP player server (see matches/server.py), "
                                   "logging one line per message; stop it with Ctrl-C")
    p.add_argument("player", metavar="PLAYER", help="a player spec, e.g. uct or random")
    p.add_argument("--port", type=int, default=9147)
    p.add_argument("--host", default="127.0.0.1",
                   help="the address to listen on (0.0.0.0 for every interface)")
    p.add_argument("--name", default=None, help="the name INFO gives (default: the player's)")
    p.add_argument("--margin", type=float, default=0.5,
                   help="seconds kept back from every clock for the reply to travel")
    p.set_defaults(func=cmd_serve)
    return parser


def _one_line_warning(message, category, filename, lineno, line=None):
    return f"ggp: warning: {message}\n"


def main(argv=None) -> int:
    warnings.formatwarning = _one_line_warning
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except (gdl.GdlError, GameError, UserError) as exc:
        message = str(exc).splitlines()[0]
        if getattr(args, "json", False):
            print(json.dumps({"error": message}))
        else:
            print(f"ggp: {message}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
