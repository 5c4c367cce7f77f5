"""Studies: many matches between player specs, run in parallel, resumable.

A study is a YAML file::

    name: playout_policies
    games: [connectFour, ../shared/games/gdl1/breakthrough.kif]   # names or paths
    players:                       # label: player spec
      uct: uct:simulations=500
      mast: mast:simulations=500
    pairs: [[mast, uct]]           # default: every pair of labels
    matches: 200                   # per game and pair; roles alternate
    seed: 1
    startclock: 10
    playclock: 10
    maxsteps: 10000                # steps before a match is aborted (never ended)
    out: results/playout_policies  # tables and plot; default: results/<file name>
    executor: process              # or ray (the optional extra: pip install '.[ray]')

Paths are relative to the YAML file.  Match ``i`` of a pair gives the first
player the first role when ``i`` is even and the second role when odd, and
seeds every player from ``(seed, game, pair, i)``, so a study is reproducible
match for match.  Every finished match goes into the match database
(:class:`matches.records.MatchStore`) under the study's name and the match's
key, committed at once; a study started again skips the keys already there,
so a killed study resumes without redoing or losing a match.  At the end:
scores per pair with 95% intervals, a Bradley-Terry ranking in Elo points,
as Markdown, CSV and a PNG plot in ``out``, and every match on a line of
``out/matches.jsonl.gz``.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import hashlib
import importlib
import json
import logging
import math
import multiprocessing
import os
import signal
import socket
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import yaml

from ggp.specs import Spec
from matches.manager import MAX_STEPS
from players.params import Param

#: The study's numbers and choices, checked as player parameters are.
_SETTINGS = (
    Param("matches", int, 100, "matches per game and pair", low=1),
    Param("seed", int, 0, "the study's seed", low=0),
    Param("startclock", float, 10.0, "seconds to prepare", low=0, low_open=True),
    Param("playclock", float, 10.0, "seconds a move", low=0, low_open=True),
    Param("maxsteps", int, MAX_STEPS, "steps before a match is aborted", low=1),
    Param("executor", str, "process", "where the matches run", choices=("process", "ray")),
)


@dataclass
class Study:
    name: str
    games: list
    players: dict  # label -> player spec (a ggp.specs.Spec, or its text)
    pairs: list
    matches: int = 100
    seed: int = 0
    startclock: float = 10.0
    playclock: float = 10.0
    maxsteps: int = MAX_STEPS
    out: Path = field(default_factory=Path)
    executor: str = "process"


#: The fields of a study file but the settings, and their types (:mod:`matches.schema`).
FIELDS = {
    "name": (str, "a string"),
    "games": ([str], "a list of games: names in games_gdl or .kif paths"),
    "players": ({str: str}, "a mapping label: player spec"),
    "pairs": ([[str]], "a list of pairs of labels, each [label, label]"),
    "out": (str, "a directory (a string)"),
}


def load_study(path) -> Study:
    """Read and check a study file: its YAML, every key and value, every
    player spec and game, and that ``out`` can be written, before any match
    is played.  A mistake raises ValueError, one line naming the file (and
    the line, for bad YAML)."""
    import players as registry
    from ggp import load_game
    from matches.schema import check

    path = Path(path)
    try:
        data = yaml.safe_load(path.read_bytes())
    except OSError as exc:
        raise ValueError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ValueError(f"{where}: not valid YAML: {problem}") from None
    data = {} if data is None else data
    try:
        check(
            data,
            FIELDS,
            required=("games", "players"),
            what="a study is a mapping (name, games, players, pairs, ...)",
        )
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None
    known = set(FIELDS) | {p.name for p in _SETTINGS}
    unknown = set(map(str, data)) - known
    if unknown:
        raise ValueError(
            f"{path}: unknown key(s) {', '.join(sorted(unknown))}; "
            f"known: {', '.join(sorted(known))}"
        )
    for key in ("games", "players"):
        if not data[key]:
            raise ValueError(f"{path}: '{key}' is empty: {FIELDS[key][1]}")
    players = {}  # label -> Spec, read here once
    for label, text in data["players"].items():
        try:
            players[label] = Spec.parse(text)
            registry.make(players[label])
        except ValueError as exc:
            raise ValueError(f"{path}: player {label}: {exc}") from None
    labels = list(players)
    pairs = [
        tuple(p)
        for p in data.get("pairs")
        or [(a, b) for i, a in enumerate(labels) for b in labels[i + 1 :]]
    ]
    for pair in pairs:
        if len(pair) != 2 or any(label not in players for label in pair):
            raise ValueError(f"{path}: pair {list(pair)} must name two of {labels}")
    games = [str(path.parent / g) if g.endswith(".kif") else g for g in data["games"]]
    for game in games:
        roles = [r for r in load_game(game).roles if r != "random"]
        if len(roles) != 2:
            raise ValueError(
                f"{path}: {game}: a study pairs two players; its roles are {', '.join(roles)}"
            )
    values = {}
    for param in _SETTINGS:
        try:
            values[param.name] = param.convert(data.get(param.name, param.default))
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None
    out = path.parent / data.get("out", f"results/{path.stem}")
    try:  # the tables are written after the last match
        out.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=out).close()
    except OSError as exc:
        raise ValueError(f"{path}: out: cannot write in {out}: {exc.strerror or exc}") from None
    return Study(
        name=data.get("name", path.stem),
        games=games,
        players=players,
        pairs=pairs,
        out=out,
        **values,
    )


def tasks(study: Study) -> list[dict]:
    """Every match of the study, each with a unique key and its own seed."""
    out = []
    for game in study.games:
        for a, b in study.pairs:
            for i in range(study.matches):
                key = f"{Path(game).stem}|{a}|{b}|{i}"
                seed = int.from_bytes(
                    hashlib.sha256(f"{study.seed}|{key}".encode()).digest()[:4], "little"
                )
                order = (a, b) if i % 2 == 0 else (b, a)
                out.append(
                    {
                        "key": key,
                        "game": game,
                        "pair": [a, b],
                        "order": list(order),
                        "specs": [study.players[x] for x in order],
                        "seed": seed,
                        "startclock": study.startclock,
                        "playclock": study.playclock,
                        "maxsteps": study.maxsteps,
                    }
                )
    return out


_GAMES: dict = {}


def play_task(task: dict) -> dict:
    """Play one match of a study (in a worker); its record as ggp.org JSON, the
    players named by their labels in the study."""
    import players as registry
    from ggp import load_game
    from matches.manager import run_match
    from matches.records import to_ggp_json

    game = _GAMES.get(task["game"])
    if game is None:
        game = _GAMES[task["game"]] = load_game(task["game"])
    roles = [r for r in game.roles if r != "random"]
    if len(roles) != 2:
        raise ValueError(f"{game.name}: studies pair two players; it has roles {roles}")
    chosen = {}
    for i, (role, given) in enumerate(zip(roles, task["specs"])):
        spec = Spec.of(given)
        chosen[role] = registry.make(
            spec, **({} if "seed" in spec.params else {"seed": task["seed"] * 10 + i})
        )
    record = run_match(
        game,
        chosen,
        seed=task["seed"],
        start_clock=task["startclock"],
        play_clock=task["playclock"],
        specs=dict(zip(roles, task["order"])),
        max_steps=task["maxsteps"],
    )
    return to_ggp_json(record)


def run_study(
    study: Study,
    workers: int | None = None,
    db=None,
    executor: str = "process",
    progress=None,
    ray_address: str | None = None,
    on_match=None,
) -> list[dict]:
    """Play the matches of ``study`` not yet in the database ``db`` (default:
    the user's), ``workers`` at a time (default: one per core), storing each
    as it finishes.  ``executor="ray"`` runs them as Ray tasks instead (on the
    cluster at ``ray_address``, else the one ``RAY_ADDRESS`` names, else a new
    local one).  ``on_match(rows, total)`` is called after each match with
    the study's matches so far (as :meth:`MatchStore.matches` gives them),
    ``progress(finished, total)`` before the first and after each (a
    :class:`ggp.progress.Progress`).  Returns a summary of every match of the
    study, in task order."""
    from matches.records import MatchStore

    all_tasks = tasks(study)
    with MatchStore(db) as store:
        done = store.keys(study.name)
        todo = [t for t in all_tasks if t["key"] not in done]
        total, finished = len(all_tasks), len(all_tasks) - len(todo)
        if progress:
            progress(finished, total)
        for task, record in _execute(todo, workers or os.cpu_count() or 1, executor, ray_address):
            store.add(record, study=study.name, key=task["key"])
            finished += 1
            if progress:
                progress(finished)
            if on_match:
                on_match(store.matches(study=study.name), total)
        order = {t["key"]: i for i, t in enumerate(all_tasks)}
        rows = [r for r in store.matches(study=study.name) if r["key"] in order]
    return sorted(rows, key=lambda r: order[r["key"]])


def _execute(todo: list, workers: int, executor: str, ray_address: str | None = None):
    """(task, record) pairs as the matches finish, in any order."""
    if executor == "ray":
        try:
            import ray
        except ImportError:
            raise ExecutorError("the ray executor needs Ray: pip install 'ggp[ray]'") from None
        ours = not ray.is_initialized()
        if ours:
            _connect_ray(ray, ray_address or os.environ.get("RAY_ADDRESS"))
        try:
            remote = ray.remote(play_task)
            pending = {remote.remote(t): t for t in todo}
            while pending:
                (ready,), _ = ray.wait(list(pending), num_returns=1)
                yield pending.pop(ready), ray.get(ready)
        finally:
            if ours:
                ray.shutdown()
        return
    if executor != "process":
        raise ValueError(f"executor must be 'process' or 'ray', not {executor!r}")
    # Ctrl-C reaches the whole process group: the workers leave it to this process,
    # whose Pool.terminate (on leaving the block) stops them at once, matches under way lost
    with multiprocessing.Pool(
        workers, initializer=signal.signal, initargs=(signal.SIGINT, signal.SIG_IGN)
    ) as pool:
        yield from pool.imap_unordered(_play_keyed, todo)


def _play_keyed(task: dict) -> tuple:
    return task, play_task(task)


class ExecutorError(Exception):
    """The executor cannot run the study's matches: one line saying why and
    what to do about it."""


def _connect_ray(ray, address: str | None) -> None:
    """Join the Ray cluster at ``address`` (``HOST:PORT``, ``auto``,
    ``ray://...``), or start a local one when it is None.

    A cluster started by ``ray start --head`` uses token authentication when
    that machine has a token (``~/.ray/auth_token``, which any earlier local
    ``ray.init()`` left there, or ``RAY_AUTH_TOKEN``), but Ray's driver never
    turns it on for an explicit address: it was refused 20 times over 20 s
    (``InvalidAuthToken``) and then failed.  The driver here follows the rule
    ``ray start`` follows.  A cluster that is not there, or that refuses this
    machine's token, is an :class:`ExecutorError` at once, in one line."""
    text = address or ""
    host, _, port = text.rpartition(":")
    if host and port.isdigit() and "://" not in text:
        try:
            socket.create_connection((host, int(port)), timeout=5).close()
        except OSError as exc:
            raise ExecutorError(
                f"no Ray cluster answers at {address} ({exc.strerror or exc}): start one "
                f"there with `ray start --head --port {port}`, or give its address"
            ) from None
        from ray._private.authentication.authentication_token_setup import (
            maybe_enable_token_auth_if_token_available,
        )
        from ray.exceptions import AuthenticationError

        # Ray's client of its cluster store; its compiled module's stubs do not name it
        GcsClient = importlib.import_module("ray._raylet").GcsClient

        quiet = logging.getLogger(maybe_enable_token_auth_if_token_available.__module__)
        quiet.disabled = True  # its warning speaks of the cluster, not of this driver
        maybe_enable_token_auth_if_token_available(warn_if_disabled=False)
        quiet.disabled = False
        try:
            with _quiet_stderr():  # Ray's C++ client logs the refusal there as well
                GcsClient(address=address).cluster_id
        except AuthenticationError:
            raise ExecutorError(
                f"the Ray cluster at {address} refused this machine (token authentication): "
                "give it the head's token (copy the head's ~/.ray/auth_token here, or set "
                "RAY_AUTH_TOKEN), or start the cluster with RAY_AUTH_MODE=disabled on a "
                "private network"
            ) from None
    try:
        ray.init(address=address, ignore_reinit_error=True)
    except (ConnectionError, RuntimeError) as exc:
        where = f"the Ray cluster at {address}" if address else "a local Ray cluster"
        raise ExecutorError(f"cannot use {where}: {str(exc).strip().splitlines()[0]}") from None


@contextlib.contextmanager
def _quiet_stderr():
    """File descriptor 2 sent to /dev/null for a while (C++ libraries write
    there past ``sys.stderr``)."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def _by_label(row) -> dict:
    """Goal of each player of a stored match, by its label in the study."""
    return {row["players"][role]: goal for role, goal in row["goals"].items()}


def score_interval(scores: list, z: float = 1.96) -> tuple:
    """The 95% Wilson score interval (low, high) of the mean of ``scores``
    (goal points, 0..100), taken as a proportion of 100 over ``len(scores)``
    matches.  For wins and losses (100 and 0, a draw 50) it is Wilson's
    interval of the win rate; for goals in between it is wider than needed,
    since a score of mean p in [0, 1] has a variance of at most p(1 - p).
    Unlike the normal approximation it never shrinks to nothing: 6 wins of 6
    give 61.0 .. 100.0, not 100.0 +- 0.0."""
    n = len(scores)
    p = min(1.0, max(0.0, sum(scores) / n / 100))
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return round(100 * max(0.0, centre - half), 1), round(100 * min(1.0, centre + half), 1)


def aborted(rows: list[dict]) -> int:
    """The matches the manager aborted (no goals: the game did not end
    within the study's ``maxsteps``, or its rules broke in play), which the
    tables do not score."""
    return sum(1 for row in rows if len(row["goals"]) != 2)


def summary(rows: list[dict]) -> list[dict]:
    """Per game and pair with a scored match: the first player's wins, draws,
    losses and mean score (goal points, 0..100) with its 95% interval
    (:func:`score_interval`), and its matches aborted (:func:`aborted`)."""
    groups: dict = {}
    for row in rows:
        _, a, b, _ = row["key"].split("|")
        groups.setdefault((row["game"], a, b), []).append(_by_label(row))
    out = []
    for (game, a, b), every in groups.items():
        goals = [g for g in every if len(g) == 2]
        if not goals:
            continue
        scores = [g[a] for g in goals]
        low, high = score_interval(scores)
        out.append(
            {
                "game": game,
                "player": a,
                "opponent": b,
                "matches": len(scores),
                "aborted": len(every) - len(goals),
                "wins": sum(g[a] > g[b] for g in goals),
                "draws": sum(g[a] == g[b] for g in goals),
                "losses": sum(g[a] < g[b] for g in goals),
                "score": round(sum(scores) / len(scores), 1),
                "low": low,
                "high": high,
            }
        )
    return out


def ranking(rows: list[dict], labels: list, resamples: int = 200, seed: int = 0) -> list[dict]:
    """Bradley-Terry strengths of the players over all matches, as Elo points
    (mean 0) with 95% intervals from a bootstrap over the matches.

    Fitted by Hunter's MM algorithm ("MM algorithms for generalized
    Bradley-Terry models", Ann. Statist. 32(1), 2004): a draw counts half a
    win to each side, and every pair of players is given one virtual draw so
    that a player who never wins (or never loses) keeps a finite rating.

    The bootstrap is in numpy: a match counts only by its pair and outcome,
    so a resample of the n matches is a multinomial draw of n over those
    kinds (seeded by ``seed``), and the ``resamples`` fits run together.
    """
    index = {p: i for i, p in enumerate(labels)}
    kinds: dict = {}  # (winner's index, loser's index, draw) -> matches
    for row in rows:
        goals = _by_label(row)
        if len(goals) != 2:
            continue
        (a, ga), (b, gb) = sorted(goals.items(), key=lambda item: -item[1])
        kind = (index[a], index[b], ga == gb)
        kinds[kind] = kinds.get(kind, 0) + 1
    size = len(labels)
    wins = np.zeros((len(kinds), size))  # a kind's wins of each player
    meets = np.zeros((len(kinds), size, size))
    for k, (a, b, draw) in enumerate(kinds):
        wins[k, a] += 0.5 if draw else 1.0
        wins[k, b] += 0.5 if draw else 0.0
        meets[k, a, b] = meets[k, b, a] = 1
    counts = np.array([list(kinds.values())], dtype=float)
    total = counts.sum()
    if total and resamples:
        rng = np.random.default_rng(seed)
        counts = np.vstack([counts, rng.multinomial(int(total), counts[0] / total, size=resamples)])
    elo = _fit(counts @ wins, np.einsum("rk,kpq->rpq", counts, meets))
    samples = np.sort(elo[1:], axis=0)
    out = []
    for p in sorted(labels, key=lambda p: -elo[0, index[p]]):
        i = index[p]
        low, high = (
            (samples[int(0.025 * len(samples)), i], samples[int(0.975 * len(samples)) - 1, i])
            if len(samples)
            else (elo[0, i], elo[0, i])
        )
        out.append(
            {
                "player": p,
                "elo": round(float(elo[0, i])),
                "low": round(float(low)),
                "high": round(float(high)),
            }
        )
    return out


def _fit(wins, meets, iterations: int = 200):
    """Elo points (mean 0) of every player in each of a batch of samples:
    ``wins[r, p]`` the wins of player p in sample r, ``meets[r, p, q]`` the
    matches of p against q; one virtual draw is added to every pair."""
    size = wins.shape[1]
    virtual = 1.0 - np.eye(size)
    wins = wins + 0.5 * (size - 1)
    meets = meets + virtual
    strength = np.ones_like(wins)
    for _ in range(iterations):
        strength = wins / (meets / (strength[:, :, None] + strength[:, None, :])).sum(axis=2)
        strength /= np.exp(np.log(strength).mean(axis=1, keepdims=True))
    return 400 * np.log10(strength)


#: The study's matches, a JSON line each, gzip-compressed (a 500-match-a-pair
#: study is 4 MB of text and 90 kB compressed); :func:`match_lines` also reads
#: the plain ``matches.jsonl`` that studies wrote before.
MATCHES_FILE = "matches.jsonl.gz"


def write_matches(study: Study, matches: list[dict]) -> None:
    """:data:`MATCHES_FILE` in the study's directory: one line a match (its key,
    game, each label's role and goal, steps, faults), so that the tables can be
    recomputed and checked from committed results; the same matches give the
    same bytes (no time in the gzip header)."""
    study.out.mkdir(parents=True, exist_ok=True)
    lines = []
    for m in matches:
        _, a, b, _ = m["key"].split("|")
        lines.append(
            json.dumps(
                {
                    "key": m["key"],
                    "game": m["game"],
                    "pair": [a, b],
                    "roles": {label: role for role, label in m["players"].items()},
                    "goals": _by_label(m),
                    "steps": m["steps"],
                    "faults": m["faults"],
                }
            )
            + "\n"
        )
    with (
        open(study.out / MATCHES_FILE, "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as f,
    ):
        f.write("".join(lines).encode())
    (study.out / "matches.jsonl").unlink(missing_ok=True)  # an older study's plain file


def matches_path(folder) -> Path:
    """The matches file of a study's out ``folder``: :data:`MATCHES_FILE`, else
    an older study's ``matches.jsonl``; OSError when it has neither."""
    for name in (MATCHES_FILE, "matches.jsonl"):
        path = Path(folder) / name
        if path.is_file():
            return path
    raise FileNotFoundError(f"{folder}: no {MATCHES_FILE} (is it a study's out folder?)")


def match_lines(path) -> list[str]:
    """The lines of a study's matches file (compressed or not)."""
    path = Path(path)
    data = path.read_bytes()
    if path.suffix == ".gz":
        data = gzip.decompress(data)
    return data.decode("utf-8").splitlines()


def write_tables(study: Study, rows: list[dict], ranks: list[dict], unscored: int = 0) -> str:
    """``summary.md``, ``summary.csv`` and ``summary.png`` in the study's
    directory, saying how many matches were aborted (``unscored``); returns
    the Markdown."""
    lines = [
        "| game | player | opponent | matches | wins | draws | losses | score (95% CI) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['game']} | {r['player']} | {r['opponent']} | {r['matches']} | "
            f"{r['wins']} | {r['draws']} | {r['losses']} | "
            f"{r['score']} ({r['low']} .. {r['high']}) |"
        )
    lines += ["", "| rank | player | Elo (Bradley-Terry) | 95% interval |", "|---|---|---|---|"]
    lines += [
        f"| {i + 1} | {r['player']} | {r['elo']} | {r['low']} .. {r['high']} |"
        for i, r in enumerate(ranks)
    ]
    if unscored:
        lines += [
            "",
            f"{unscored} match(es) aborted, not scored: the game did not end "
            f"within {study.maxsteps:,} steps (maxsteps), or its rules broke in "
            "play (each record's abortReason says which).",
        ]
    text = "\n".join(lines) + "\n"
    study.out.mkdir(parents=True, exist_ok=True)
    (study.out / "summary.md").write_text(text)
    with open(study.out / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["game"])
        writer.writeheader()
        writer.writerows(rows)
    _plot(rows, study.out / "summary.png", study.name)
    return text


def _plot(rows: list[dict], path: Path, title: str):
    """Each pair's score with its 95% interval, grouped by game."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [f"{r['game']}\n{r['player']} v {r['opponent']}" for r in rows]
    fig, ax = plt.subplots(figsize=(max(4, 1.3 * len(rows)), 4))
    ax.bar(
        range(len(rows)),
        [r["score"] for r in rows],
        yerr=[[r["score"] - r["low"] for r in rows], [r["high"] - r["score"] for r in rows]],
        capsize=4,
        color="tab:blue",
    )
    ax.axhline(50, color="grey", linewidth=0.8, linestyle="--")
    ax.set_xticks(range(len(rows)), labels, fontsize=7)
    ax.set_ylim(0, 100)
    ax.set_ylabel("score of the first player (goal points)")
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
