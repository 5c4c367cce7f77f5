"""Studies: many matches between player specs, run in parallel, resumable.

A study is a YAML file::

    name: seed003
    games: [connectFour, ../shared/games/gdl1/breakthrough.kif]   # names or paths
    players:                       # label: player spec
      uct: uct:simulations=500
      mast: mast:simulations=500
    pairs: [[mast, uct]]           # default: every pair of labels
    matches: 200                   # per game and pair; roles alternate
    seed: 1
    startclock: 10
    playclock: 10
    out: results/seed003           # default: next to the YAML file, named after it

Paths are relative to the YAML file.  Match ``i`` of a pair gives the first
player the first role when ``i`` is even and the second role when odd, and
seeds every player from ``(seed, game, pair, i)``, so a study is reproducible
match for match.  Each finished match is appended to ``out/matches.jsonl``
(one JSON object a line, flushed); a study started again skips the matches
already there, so a killed study resumes without redoing or losing any.
"""
from __future__ import annotations

import concurrent.futures
import csv
import hashlib
import json
import math
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml


@dataclass
class Study:
    name: str
    games: list
    players: dict
    pairs: list
    matches: int = 100
    seed: int = 0
    startclock: float = 10.0
    playclock: float = 10.0
    out: Path = field(default_factory=Path)


def load_study(path) -> Study:
    """Read and check a study file; a mistake raises ValueError naming it."""
    path = Path(path)
    data = yaml.safe_load(path.read_text()) or {}
    known = set(Study.__dataclass_fields__)
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"{path}: unknown key(s) {', '.join(sorted(unknown))}; "
                         f"known: {', '.join(sorted(known))}")
    for key in ("games", "players"):
        if not data.get(key):
            raise ValueError(f"{path}: '{key}' is required")
    players = {str(k): str(v) for k, v in data["players"].items()}
    labels = list(players)
    pairs = [tuple(p) for p in data.get("pairs") or
             [(a, b) for i, a in enumerate(labels) for b in labels[i + 1:]]]
    for pair in pairs:
        if len(pair) != 2 or any(label not in players for label in pair):
            raise ValueError(f"{path}: pair {list(pair)} must name two of {labels}")
    games = [str(path.parent / g) if g.endswith(".kif") else g for g in data["games"]]
    out = path.parent / data.get("out", f"results/{path.stem}")
    return Study(name=data.get("name", path.stem), games=games, players=players,
                 pairs=pairs, matches=int(data.get("matches", 100)),
                 seed=int(data.get("seed", 0)),
                 startclock=float(data.get("startclock", 10.0)),
                 playclock=float(data.get("playclock", 10.0)), out=out)


def tasks(study: Study) -> list[dict]:
    """Every match of the study, each with a unique key and its own seed."""
    out = []
    for game in study.games:
        for a, b in study.pairs:
            for i in range(study.matches):
                key = f"{Path(game).stem}|{a}|{b}|{i}"
                seed = int.from_bytes(hashlib.sha256(
                    f"{study.seed}|{key}".encode()).digest()[:4], "little")
                order = (a, b) if i % 2 == 0 else (b, a)
                out.append({"key": key, "game": game, "pair": [a, b], "order": list(order),
                            "specs": [study.players[x] for x in order], "seed": seed,
                            "startclock": study.startclock, "playclock": study.playclock})
    return out


_GAMES: dict = {}


def play_task(task: dict) -> dict:
    """Play one match of a study (in a worker process); the result as JSON data."""
    import players as registry
    from ggp import load_game
    from matches.manager import run_match
    game = _GAMES.get(task["game"])
    if game is None:
        game = _GAMES[task["game"]] = load_game(task["game"])
    roles = [r for r in game.roles if r != "random"]
    if len(roles) != 2:
        raise ValueError(f"{game.name}: studies pair two players; it has roles {roles}")
    chosen = {}
    for i, (role, spec) in enumerate(zip(roles, task["specs"])):
        chosen[role] = registry.make(spec, **({} if "seed=" in spec else
                                              {"seed": task["seed"] * 10 + i}))
    record = run_match(game, chosen, seed=task["seed"], start_clock=task["startclock"],
                       play_clock=task["playclock"], specs=dict(zip(roles, task["specs"])))
    labels = dict(zip(roles, task["order"]))
    return {"key": task["key"], "game": game.name, "pair": task["pair"],
            "roles": {labels[r]: r for r in roles},
            "goals": {labels[r]: record.goals[r] for r in roles},
            "steps": len(record.moves),
            "faults": sum(1 for step in record.errors for e in step if e)}


def finished(study: Study) -> dict:
    """Results already in ``out/matches.jsonl``, by key (a torn last line is ignored)."""
    path = study.out / "matches.jsonl"
    results = {}
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                result = json.loads(line)
            except json.JSONDecodeError:
                continue
            results[result["key"]] = result
    return results


def run_study(study: Study, workers: int | None = None, progress=sys.stderr) -> list[dict]:
    """Play the matches not yet played, in ``workers`` processes (default: one
    per core), appending each to the results as it finishes.  Returns all
    results in task order."""
    study.out.mkdir(parents=True, exist_ok=True)
    done = finished(study)
    todo = [t for t in tasks(study) if t["key"] not in done]
    total = len(done) + len(todo)
    workers = workers or os.cpu_count() or 1
    path = study.out / "matches.jsonl"
    with open(path, "a") as sink:
        if sink.tell() and not path.read_text().endswith("\n"):
            sink.write("\n")            # a line torn by a kill: start afresh after it
        with concurrent.futures.ProcessPoolExecutor(workers) as pool:
            futures = [pool.submit(play_task, t) for t in todo]
            for future in concurrent.futures.as_completed(futures):
                result = future.result()
                sink.write(json.dumps(result) + "\n")
                sink.flush()
                os.fsync(sink.fileno())
                done[result["key"]] = result
                if progress:
                    goals = ", ".join(f"{k} {v}" for k, v in result["goals"].items())
                    print(f"[{len(done)}/{total}] {result['game']}: {goals}", file=progress)
    order = {t["key"]: i for i, t in enumerate(tasks(study))}
    return sorted((r for r in done.values() if r["key"] in order), key=lambda r: order[r["key"]])


def summary(results: list[dict]) -> list[dict]:
    """Per game and pair: the first player's wins, draws, losses and mean score
    (goal points, 0..100) with a 95% interval (normal approximation)."""
    groups: dict = {}
    for r in results:
        groups.setdefault((r["game"], tuple(r["pair"])), []).append(r)
    rows = []
    for (game, (a, b)), rs in groups.items():
        scores = [r["goals"][a] for r in rs]
        n = len(scores)
        mean = sum(scores) / n
        var = sum((s - mean) ** 2 for s in scores) / (n - 1) if n > 1 else 0.0
        rows.append({"game": game, "player": a, "opponent": b, "matches": n,
                     "wins": sum(r["goals"][a] > r["goals"][b] for r in rs),
                     "draws": sum(r["goals"][a] == r["goals"][b] for r in rs),
                     "losses": sum(r["goals"][a] < r["goals"][b] for r in rs),
                     "score": round(mean, 1),
                     "ci95": round(1.96 * math.sqrt(var / n), 1) if n > 1 else None,
                     "faults": sum(r["faults"] for r in rs)})
    return rows


def write_tables(study: Study, rows: list[dict]) -> str:
    """``summary.md`` and ``summary.csv`` in the study's directory; returns the Markdown."""
    lines = ["| game | player | opponent | matches | wins | draws | losses | score (95% CI) |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        ci = f" ± {r['ci95']}" if r["ci95"] is not None else ""
        lines.append(f"| {r['game']} | {r['player']} | {r['opponent']} | {r['matches']} | "
                     f"{r['wins']} | {r['draws']} | {r['losses']} | {r['score']}{ci} |")
    text = "\n".join(lines) + "\n"
    (study.out / "summary.md").write_text(text)
    with open(study.out / "summary.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["game"])
        writer.writeheader()
        writer.writerows(rows)
    return text
