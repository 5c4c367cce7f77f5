"""The commands that play: match, play, study, replay, view, serve and players (and the
viewer they share)."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path

import gdl
from ggp.progress import Progress
from matches.cli.common import (
    COUNT,
    NATURAL,
    PORT,
    Commands,
    Interrupted,
    UserError,
    emit,
    load_args_game,
    number,
    writable,
)
from matches.server import DEFAULT_MARGIN


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
    seats: dict[str, LocalSeat | RemoteSeat] = {}
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
    game = load_args_game(args)
    matches = []
    for m in range(args.matches):
        seed = None if args.seed is None else args.seed + m
        record = _run(args, game, args.players, seed)
        matches.append(_summary(record))
        if not args.json:
            print(_outcome(record))
        if record.broken is not None:
            break
    if args.json:
        print(json.dumps({"game": game.name, "matches": matches}, indent=2))
    return _broken(args, record)


def cmd_match(args) -> int:
    from matches.records import MatchStore, write_json

    game = load_args_game(args)
    if args.out:
        writable(args.out)
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
    emit(args, {"game": game.name, **_summary(record)}, text)
    _keep_serving(viewer)
    return _broken(args, record)


def _broken(args, record) -> int:
    """0, or 1 when the game broke its rules in the (last) match, which
    was recorded aborted: the error is then raised for ``ggp check``'s line,
    or, with ``--json``, left to the record's ``aborted``."""
    if record.broken is None:
        return 0
    if args.json:
        return 1
    raise record.broken


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
    emit(
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
    from matches.views import Damaged, Library, study_view

    for record in args.records:
        if not Path(record).is_file():
            raise UserError(f"{record}: no such file", "io")
    if args.study is not None:
        if not Path(args.study).is_dir():
            raise UserError(f"{args.study}: no such directory", "io")
        try:
            study_view(args.study)  # read before serving (the page's first load reuses it)
        except Damaged as exc:
            raise UserError(str(exc), "io") from None
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
        report = replay(data, load_args_game(args, args.game) if args.game else None)
    except OSError as exc:
        raise UserError(f"{args.match}: cannot read it: {exc.strerror or exc}", "io") from None
    except ValueError as exc:
        raise UserError(f"{args.match}: {exc}", "io") from None
    verdict = ["replay: OK"] if report.ok else report.problems
    emit(
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
    emit(args, {"players": listing}, "\n".join(lines))
    return 0


def _as_given(default) -> str:
    """A parameter's default as a player spec gives it (``=false``), or
    nothing when it has none (its help says what happens then)."""
    if default is None:
        return ""
    return f"={str(default).lower()}" if isinstance(default, bool) else f"={default}"


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


def add_commands(cli: Commands) -> None:
    """Add the match, play, study, replay, view, serve, players commands."""
    command = cli.command
    max_bytes = cli.max_bytes
    view_options = cli.view_options
    clocks = cli.clocks
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
        type=number(float, low=0),
        default=DEFAULT_MARGIN,
        help="seconds kept back from every clock for the reply to travel; the "
        "player thinks until the clock less this and its own margin",
    )
    max_bytes(p)  # a START's rules

    command("players", cmd_players, "list the players and their parameters", game=False)
