"""The `ggp` command: exit status, one-line errors, and the --json shapes."""

import itertools
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import brute_force
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import players
from ggp import load_game
from matches.cli import main
from matches.cli.imperfect import EXPLOIT_MODES

GOOD = """
(role a)
(init (step 0))
(<= (legal a go) (true (step 0)))
(<= (next (step 1)) (does a go))
(<= terminal (true (step 1)))
(goal a 100)
"""

BROKEN = {
    "syntax": (
        "(role a)\n(<= (legal a go)\n    (true (step 0))\n(goal a 100)\n",
        2,
        "never closed",
    ),
    "unsafe": (GOOD + "(<= (goal a ?x) (true (step 1)))\n", 8, "unsafe"),
    "unstratified": (GOOD + "(<= p (not q))\n(<= q p)\n", 8, "stratified"),
    "no goal": (GOOD.replace("(goal a 100)", ""), 2, "no goal"),
}


def run(*args):
    return subprocess.run(
        [sys.executable, "-m", "matches.cli", *args], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_check_rejects_with_one_line(tmp_path, kind):
    text, line, words = BROKEN[kind]
    path = tmp_path / "broken.kif"
    path.write_text(text)
    result = run("check", str(path))
    assert result.returncode != 0
    assert "Traceback" not in result.stdout + result.stderr
    out = (result.stdout + result.stderr).strip().splitlines()
    assert len(out) == 1 and not result.stdout
    assert out[0].startswith(f"ggp: {path}:{line}:")
    assert words in out[0]


STUCK = GOOD.replace("(<= terminal (true (step 1)))", "(<= terminal (true (step 2)))")


def test_check_finds_a_role_without_legal_moves(tmp_path):
    path = tmp_path / "stuck.kif"
    path.write_text(STUCK)
    result = run("check", str(path))
    assert result.returncode == 1
    assert not result.stdout and "Traceback" not in result.stderr
    assert result.stderr == (
        f"ggp: {path}:2:1: error[legal]: role a has no legal move in a "
        f"reachable non-terminal state\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["play", "random"],
        ["match", "--player", "random"],
        ["info", "--tree"],
        ["solve"],
        ["exploit", "--policy", "uniform"],
        ["exploit", "--player", "smooth-uct", "--episodes", "10"],
    ],
)
def test_every_command_rejects_an_unplayable_game_with_checks_line(tmp_path, argv):
    path = tmp_path / "stuck.kif"
    path.write_text(STUCK)
    db = ["--db", str(tmp_path / "m.sqlite")] if argv[0] == "match" else []
    result = run(argv[0], str(path), *argv[1:], *db)
    assert result.returncode == 1
    assert result.stderr.splitlines()[-1] == run("check", str(path)).stderr.strip()
    if db:  # the match is kept, aborted, with the move played before the rules broke
        from matches.records import MatchStore

        with MatchStore(db[1]) as store:
            (match,) = store.matches()
            data = store.get(match["match_id"])
        assert data["isAborted"] and len(data["moves"]) == 1


def test_check_finds_no_termination(tmp_path):
    path = tmp_path / "loop.kif"
    path.write_text(
        GOOD.replace("(<= (legal a go) (true (step 0)))", "(legal a go)").replace(
            "(<= (next (step 1)) (does a go))", "(<= (next (step 0)) (does a go))"
        )
    )
    result = run("check", str(path), "--max-steps", "50")
    assert result.returncode == 1
    assert result.stderr.startswith(
        f"ggp: {path}:6:1: error[terminal]: no terminal state after 50 steps"
    )


def test_check_valid_game(capsys):
    assert main(["check", "tictactoe", "--json", "--playouts", "5"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["valid"] and data["playouts"] == 5 and data["errors"] == []


def test_unknown_game_is_one_line():
    result = run("info", "no_such_game")
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "no_such_game" in result.stderr


def test_count_json(capsys):
    assert main(["count", "tictactoe", "--depth", "2", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["nodes"], data["terminals"], data["distinct_states"], data["max_depth"]) == (
        1 + 9 + 72,
        0,
        1 + 9 + 72,
        2,
    )


def test_info_json(capsys):
    assert main(["info", "tictactoe", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["roles"] == ["xplayer", "oplayer"] and data["gdl2"] is False
    assert data["base_propositions"] == 29 and data["input_propositions"] == 20


def test_play_json(capsys):
    assert (
        main(["play", "tictactoe", "random", "legal", "--seed", "3", "--matches", "2", "--json"])
        == 0
    )
    data = json.loads(capsys.readouterr().out)
    assert len(data["matches"]) == 2
    for match in data["matches"]:
        assert match["players"] == {"xplayer": "random", "oplayer": "legal"}
        assert set(match["goals"]) == {"xplayer", "oplayer"}
        assert sum(match["goals"].values()) == 100


PYTHON_VALUES = re.compile(r"\bNone\b|\bTrue\b|\bFalse\b|\{'|\['|\('")


@pytest.mark.parametrize(
    "argv",
    [
        ["info", "kuhn", "--tree", "--public"],  # a dict per role, a count not made
        ["count", "rps"],  # no --depth
        ["solve", "kuhn", "--iterations", "20"],  # values per role, no --out or --curve
        ["exploit", "kuhn", "--policy", "uniform"],
        ["exploit", "kuhn", "--player", "smooth-uct", "--episodes", "100"],
        ["exploit", "kuhn", "--player", "random", "--online", "--seeds", "1"],  # no budget
        ["bench", "rps", "--seconds", "0.1"],  # no fault
        ["players"],  # parameters without a default, flags
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_text_output_shows_no_python_values(capsys, argv):
    """The text output prints no Python values (as it once did: 'fault: None',
    '{'first': 6, 'second': 6}', 'seed=None')."""
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.strip() and not PYTHON_VALUES.search(out), PYTHON_VALUES.search(out)


def test_every_help_entry_gives_its_default_once(monkeypatch):
    """Each entry of the commands' help gives its default once (26 once gave two,
    '(default 1,000,000) (default: None)') and a flag none ('(default: False)')."""
    from matches.cli import build_parser

    monkeypatch.setenv("COLUMNS", "10000")  # an entry a line
    parser = build_parser()
    commands = parser._subparsers._group_actions[0].choices
    assert len(commands) >= 13
    for name, command in commands.items():
        for line in command.format_help().splitlines():
            assert len(re.findall(r"\bdefault\b", line)) <= 1, (name, line)
            assert "(default: None)" not in line and "(default: False)" not in line, (name, line)
    assert "(default 1,000,000)" in commands["exploit"].format_help()
    assert "(default: 9147)" in commands["serve"].format_help()


def test_play_is_reproducible(capsys):
    outs = []
    for _ in range(2):
        main(["play", "connectfour", "random", "random", "--seed", "7", "--json"])
        outs.append(json.loads(capsys.readouterr().out)["matches"][0]["moves"])
    assert outs[0] == outs[1]


def test_play_prints_moves_and_board(capsys):
    assert main(["play", "tictactoe", "legal", "legal"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(
        "tictactoe: xplayer legal, oplayer legal; start clock 3 s, play clock "
        "1 s\n3 . . .\n2 . . .\n1 . . .\n  1 2 3\n"
        "step 1: xplayer (mark 1 1), oplayer noop\n"
        "3 . . .\n2 . . .\n1 x . .\n  1 2 3\n"
        "step 2: xplayer noop, oplayer (mark 1 2)\n"
        "3 . . .\n2 o . .\n1 x . .\n  1 2 3\n"
    )
    assert out.endswith("goals: xplayer 100, oplayer 0\n")


def test_a_match_past_max_steps_is_aborted_and_its_record_replays(tmp_path, capsys):
    """``ggp play`` and ``ggp match`` abort a game whose terminal is never
    reached at the step cap, rather than run until the memory is gone."""
    from test_manager import ENDLESS

    game = tmp_path / "endless.kif"
    game.write_text(ENDLESS)
    reason = "aborted: the game did not end within 7 steps (the manager's step cap)"
    assert main(["play", str(game), "random", "random", "--max-steps", "7"]) == 0
    out = capsys.readouterr().out
    assert "step 7: " in out and "step 8: " not in out and out.endswith(reason + "\n")
    record = tmp_path / "m.json"
    assert (
        main(
            [
                "match",
                str(game),
                "--player",
                "random",
                "--player",
                "random",
                "--quiet",
                "--max-steps",
                "7",
                "--out",
                str(record),
                "--db",
                str(tmp_path / "m.db"),
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == f"7 steps, 0 fault(s); {reason}\n"
    assert main(["replay", str(record)]) == 0
    assert capsys.readouterr().out.endswith(f"{reason}\nreplay: OK\n")


def test_play_wrong_number_of_players():
    result = run("play", "tictactoe", "random")
    assert result.returncode == 1
    assert "give one player each" in result.stderr


def test_play_unknown_player():
    result = run("play", "tictactoe", "random", "nobody")
    assert result.returncode == 1
    assert "unknown player 'nobody'" in result.stderr


def test_bench_times_a_game_whose_goals_are_faulty_without_them():
    """chess.kif gives no goal after move 200: bench says so once and times
    the playouts without their goals, where it stopped at the first fault."""
    from ggp import load_game
    from ggp.tools.bench import bench

    game = load_game("""(role p) (init (at 0)) (<= (legal p go) (true (at 0)))
        (<= (next (at 1)) (does p go)) (<= terminal (true (at 1)))
        (<= (goal p 100) (true (at 2)))""")
    with pytest.warns(RuntimeWarning, match="no goal values.*timing the playouts without"):
        result = bench(game, "reference", seconds=0.2)
    assert result["fault"].startswith("role p has no goal values")
    assert result["playouts"] > 0 and result["mean_depth"] == 1


GOAL_NONE = "tests/invalid/play/goal_none.kif"


@pytest.mark.parametrize("reasoner", ["compiled", "reference", "demand"])
def test_bench_reports_a_goal_fault_on_every_reasoner(capsys, monkeypatch, reasoner):
    """A terminal state where a role has no goal is bench's fault on every
    reasoner, the compiled one too (its playouts run in C, which checks the
    goals of the terminal states it reaches): the line ggp check prints."""
    monkeypatch.chdir(ROOT)
    with pytest.warns(RuntimeWarning, match="no goal values.*timing the playouts without"):
        assert main(["bench", GOAL_NONE, "--reasoner", reasoner, "--seconds", "0.3", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reasoner"] == reasoner
    assert data["fault"] == (
        "role b has no goal values in a terminal state; GDL requires exactly one"
    )
    assert data["playouts"] > 0 and data["mean_depth"] == 1
    assert main(["check", GOAL_NONE]) == 1
    assert capsys.readouterr().err.endswith(f"error[goal]: {data['fault']}\n")


@pytest.mark.parametrize("reasoner", ["compiled", "reference"])
def test_bench_json(capsys, reasoner):
    assert main(["bench", "tictactoe", "--seconds", "0.3", "--reasoner", reasoner, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) >= {
        "game",
        "reasoner",
        "playouts",
        "playouts_per_sec",
        "states_per_sec",
        "build_seconds",
        "peak_rss_mb",
    }
    assert data["reasoner"] == reasoner and data["playouts"] > 0
    if reasoner == "compiled":  # the build's work, the same in every build
        sm = load_game("tictactoe").state_machine("compiled")
        assert data["build_effort"] == sm.build_effort > 0
        assert data["ground_rules"] == len(sm.ground_program.rule_head) > 0
    else:
        assert data["build_effort"] is None and data["ground_rules"] is None
    # state changes per playout: the mean length of a uniformly random tic-tac-toe
    # game, computed exactly from the plain-Python twin (within 3 standard errors)
    mean, sd = random_game_length(brute_force.tictactoe())
    ratio = data["states_per_sec"] / data["playouts_per_sec"]
    assert abs(ratio - mean) < 3 * sd / data["playouts"] ** 0.5 + 1e-3, (ratio, mean)


def random_game_length(game):
    """Mean and standard deviation of the number of steps of a game played by
    uniformly random joint moves, by exact recursion over its states."""
    memo = {}

    def moments(state):  # (E[length], E[length^2]) from ``state``
        if state not in memo:
            if game.terminal(state):
                memo[state] = (0.0, 0.0)
            else:
                joints = list(itertools.product(*game.legal(state)))
                e1 = e2 = 0.0
                for joint in joints:
                    m1, m2 = moments(game.next(state, joint))
                    e1 += (1 + m1) / len(joints)
                    e2 += (1 + 2 * m1 + m2) / len(joints)
                memo[state] = (e1, e2)
        return memo[state]

    e1, e2 = moments(game.initial())
    return e1, (e2 - e1 * e1) ** 0.5


def test_bench_a_search_player(capsys):
    """The player searches on the reasoner named, built before its clock
    starts (it once searched on the demand-driven fallback, started while the
    compiled machine built at a start clock of 0, and measured that)."""
    assert main(["bench", "tictactoe", "--seconds", "0.3", "--player", "uct", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["player"] == "uct" and data["simulations"] > 0
    assert data["reasoner"] == "compiled" and data["fallback_reason"] is None
    assert data["build_seconds"] >= 0
    assert data["simulations_per_sec"] == pytest.approx(
        data["simulations"] / data["seconds"], rel=0.01
    )


@pytest.mark.parametrize("spec", ["uct", "uct:reasoner=reference"])
def test_bench_a_search_player_on_the_reasoner_named(capsys, spec):
    """--reasoner names the player's reasoner, unless its spec names one."""
    argv = ["bench", "tictactoe", "--seconds", "0.2", "--player", spec, "--reasoner", "demand"]
    assert main([*argv, "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reasoner"] == ("reference" if "reference" in spec else "demand")
    assert data["simulations"] > 0 and data["fallback_reason"] is None


def test_bench_names_the_fallback_it_measures(capsys):
    """A compiled build past its limits measures the demand-driven reasoner,
    and says so in the JSON with the reason, besides the warning line."""
    argv = ["bench", "tictactoe", "--seconds", "0.2", "--ground-limit", "10", "--json"]
    with pytest.warns(UserWarning, match="using the demand-driven reasoner"):
        assert main(argv) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reasoner"] == "demand" and data["playouts"] > 0
    assert data["fallback_reason"].startswith("the relaxed domain cannot be computed")
    assert main(["bench", "tictactoe", "--seconds", "0.2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fallback_reason"] is None


@pytest.mark.parametrize(
    "spec, words",
    [
        ("random", "does not search"),
        ("nobody", "unknown player 'nobody'"),
        ("uct:seed", "is not key=value"),
    ],
)
def test_bench_player_rejects_what_it_cannot_measure(spec, words):
    result = run("bench", "tictactoe", "--seconds", "0.1", "--player", spec)
    assert result.returncode == 1
    assert words in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize(
    "argv, hint",
    [
        (["info", "connectFour"], "; did you mean 'connectfour'? (known: "),
        (["info", "tictactoe3"], "; did you mean 'tictactoe3p'? (known: "),
        (["play", "tictactoe", "random", "RANDOM"], "; did you mean 'random'? known: "),
        (["play", "tictactoe", "random", "smoth-uct"], "; did you mean 'smooth-uct'? known: "),
        (["info", "zzzz"], None),
        (["play", "tictactoe", "random", "nobody"], None),
    ],
)
def test_a_mistyped_game_or_player_name_suggests_the_nearest(argv, hint, capsys):
    """``ggp play connectFour ...`` listed connectfour among the known games
    without suggesting it; a name near none is answered as before."""
    assert main(argv) == 1
    (line,) = capsys.readouterr().err.splitlines()
    if hint is None:
        assert "did you mean" not in line and "known: " in line
    else:
        assert hint in line


# --- no traceback, whatever the numbers ----------------------------------------------------

NUMBER_OPTIONS = [
    ("check", "--playouts"),
    ("check", "--max-steps"),
    ("check", "--seconds"),
    ("check", "--seed"),
    ("solve", "--iterations"),
    ("exploit", "--episodes"),
    ("exploit", "--seed"),
    ("count", "--depth"),
    ("bench", "--seconds"),
    ("bench", "--seed"),
    ("match", "--startclock"),
    ("match", "--playclock"),
    ("match", "--seed"),
    ("match", "--max-steps"),
    ("play", "--seed"),
    ("play", "--matches"),
    ("play", "--startclock"),
    ("play", "--playclock"),
    ("play", "--max-steps"),
    ("study", "--workers"),
    ("serve", "--port"),
    ("serve", "--margin"),
]
FIRST = {
    "study": ["no/such/study.yaml"],
    "serve": ["nobody"],
    "exploit": ["nosuchgame", "--policy", "uniform"],
    "match": ["nosuchgame", "--player", "random"],
    "play": ["nosuchgame", "random"],
}

NUMBER_TEXT = (
    st.integers(-(10**20), 10**20).map(str)
    | st.floats(allow_nan=True).map(str)
    | st.text(max_size=12).filter(lambda t: not t.startswith("-"))
)


@settings(
    max_examples=400,
    deadline=None,  # capsys is read (so emptied) every example
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(option=st.sampled_from(NUMBER_OPTIONS), text=NUMBER_TEXT)
def test_any_number_gives_one_line_and_exit_1(capsys, option, text):
    """Every numeric option of every command, given anything: one line on
    stderr and status 1 (here the game, study or player never exists, so a
    value the parser takes fails just after, at loading)."""
    command, flag = option
    argv = [command, *FIRST.get(command, ["nosuchgame"]), f"{flag}={text}"]
    assert main(argv) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1 and lines[0].startswith("ggp: ") and "Traceback" not in lines[0]


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["count", "tictactoe", "--depth", "-1"],
            "count: argument --depth: expected an integer >= 0, got '-1'",
        ),
        (
            ["serve", "random", "--port", "70000"],
            "serve: argument --port: expected an integer in [0, 65535], got '70000'",
        ),
        (
            ["play", "tictactoe", "random", "random", "--playclock", "0"],
            "play: argument --playclock: expected an integer >= 1, got '0'",
        ),
        (
            ["match", "tictactoe", "--player", "random", "--startclock", "2.5"],
            "match: argument --startclock: expected an integer >= 1, got '2.5'",
        ),
    ],
)
def test_numbers_out_of_range(capsys, argv, message):
    assert main(argv) == 1
    assert capsys.readouterr().err == f"ggp: {message}\n"
    assert main(argv + ["--json"]) == 1
    assert json.loads(capsys.readouterr().out) == {
        "error": {"kind": "usage", "message": message, "file": None, "line": None, "column": None}
    }


# --- bounds: the size of the input -------------------------------------------------------

TOO_LARGE = "error[io]: the file has {} bytes, more than the {} allowed (--max-bytes N allows more)"


def test_a_game_file_past_max_bytes_is_refused_in_one_line(tmp_path):
    """--max-bytes (1 MB by default) refuses a larger file by its size, before
    reading it: parsing 5 MB of GDL took 95 s and 1.7 GB."""
    path = tmp_path / "big.kif"
    with open(path, "wb") as f:
        f.truncate(5 * 2**20)
    result = run("check", str(path))
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == f"ggp: {path}: {TOO_LARGE.format('5,242,880', '1,048,576')}\n"
    result = run("info", str(path), "--json")
    assert (result.returncode, result.stderr) == (1, "")
    assert json.loads(result.stdout) == {
        "error": {
            "kind": "io",
            "message": TOO_LARGE.split(": ", 1)[1].format("5,242,880", "1,048,576"),
            "file": str(path),
            "line": 0,
            "column": 0,
        }
    }
    assert run("check", str(path), "--max-bytes", str(5 * 2**20)).stderr.startswith(
        f"ggp: {path}:1:1: error[syntax]: control character U+0000"
    )  # read: 5 MB of NULs


def test_a_stream_past_max_bytes_is_refused_after_reading_max_bytes(tmp_path):
    """A device or a pipe has no size: at most --max-bytes + 1 bytes are read."""
    result = run("info", "/dev/zero")
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "ggp: /dev/zero: error[io]: the file has more than the 1,048,576 "
        "bytes allowed (--max-bytes N allows more)\n"
    )
    result = subprocess.run(
        [sys.executable, "-m", "matches.cli", "count", "/dev/stdin", "--max-bytes", "1000"],
        input="(role a) " * 10_000,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        "ggp: /dev/stdin: error[io]: the file has more than the 1,000 "
        "bytes allowed (--max-bytes N allows more)\n"
    )


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "tictactoe"],
        ["info", "tictactoe"],
        ["count", "tictactoe"],
        ["bench", "tictactoe"],
        ["play", "tictactoe", "random", "random"],
        ["match", "tictactoe", "--player", "random", "--player", "random"],
        ["solve", "kuhn"],
        ["exploit", "kuhn", "--policy", "uniform"],
        ["replay", "{record}", "--game", "tictactoe"],
    ],
    ids=lambda argv: argv[0],
)
def test_every_command_that_reads_a_game_takes_max_bytes(capsys, tmp_path, argv):
    record = tmp_path / "record.json"
    record.write_text("{}")
    argv = [str(record) if a == "{record}" else a for a in argv]
    assert (
        main(
            [*argv, "--max-bytes", "100", "--db", str(tmp_path / "m.sqlite")]
            if argv[0] == "match"
            else [*argv, "--max-bytes", "100"]
        )
        == 1
    )
    err = capsys.readouterr().err.splitlines()
    game = "tictactoe" if "tictactoe" in argv else "kuhn"
    size = (Path(__file__).parents[1] / "games_gdl" / f"{game}.kif").stat().st_size
    assert err == [f"ggp: {ROOT / 'games_gdl' / game}.kif: {TOO_LARGE.format(f'{size:,}', 100)}"]


# --- bounds: the work of an analysis --------------------------------------------------------


def test_a_question_past_the_demand_reasoners_limit_is_one_line():
    """A role with 200^4 legal moves filled the memory answer by answer; the
    demand-driven reasoner now stops at 100,000 answers to one call in a
    state (a count, not a time) and the command says so in one line."""
    path = str(ROOT / "tests" / "invalid" / "play" / "legal_too_many.kif")
    result = run("check", path, "--reasoner", "demand")
    assert (result.returncode, result.stdout) == (1, "")
    message = (
        "(legal a ?) has more than 100,000 answers in one state, more than the "
        "demand-driven reasoner holds"
    )
    assert result.stderr == f"ggp: {message}\n"
    result = run("count", path, "--reasoner", "demand", "--json")
    assert (result.returncode, result.stderr) == (1, "")
    assert json.loads(result.stdout) == {
        "error": {"kind": "game", "message": message, "file": None, "line": None, "column": None}
    }


# --- the table of bad inputs in docs/errors.md ------------------------------------------

ROOT = Path(__file__).resolve().parents[1]


def readme_bad_inputs():
    """(command, line) of every row of the table of bad inputs (docs/errors.md)."""
    text = (ROOT / "docs" / "errors.md").read_text()
    table = text.split("<!-- bad-inputs: begin -->")[1].split("<!-- bad-inputs: end -->")[0]
    rows = [line for line in table.splitlines() if line.startswith("| ")][1:]
    out = []
    for row in rows:
        cells = row.split(" | ")
        command = re.search(r"`([^`]*)`", cells[1])[1]
        out.append(pytest.param(command, re.search(r"`(.*)`", cells[-1])[1], id=command))
    return out


@pytest.mark.parametrize("command, line", readme_bad_inputs())
def test_the_documented_table_of_bad_inputs_is_what_the_commands_print(
    capsys, monkeypatch, command, line
):
    monkeypatch.chdir(ROOT)
    # only the players of the package (other test modules register their own)
    players.registry.names()
    monkeypatch.setattr(
        players.registry.REGISTRY,
        "classes",
        {
            name: cls
            for name, cls in players.registry.REGISTRY.classes.items()
            if cls.__module__.startswith("players.")
        },
    )
    argv = shlex.split(command)
    assert argv[0] == "ggp"
    assert main(argv[1:]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines()[-1] == line


LOOP = GOOD.replace("(<= (legal a go) (true (step 0)))", "(legal a go)").replace(
    "(<= (next (step 1)) (does a go))", "(<= (next (step 0)) (does a go))"
)


def test_count_with_a_depth_walks_a_game_whose_states_repeat(tmp_path, capsys):
    path = tmp_path / "loop.kif"
    path.write_text(LOOP)
    assert main(["count", str(path), "--depth", "4", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["nodes"], data["terminals"], data["distinct_states"]) == (5, 0, 1)
    assert main(["count", str(path)]) == 1
    assert "the game tree is infinite; give a depth bound" in capsys.readouterr().err


def long_game(steps: int) -> str:
    """Two roles taking turns for ``steps`` steps; the mover may stop (and
    win) at each: a tree of 2 * steps + 1 histories, ``steps`` deep."""
    succ = " ".join(f"(succ {i} {i + 1})" for i in range(steps))
    return f"""(role white) (role black) (init (control white)) (init (step 0))
(<= (legal ?r a) (true (control ?r))) (<= (legal ?r b) (true (control ?r)))
(<= (legal ?r noop) (role ?r) (not (true (control ?r))))
(<= (next (control black)) (true (control white)))
(<= (next (control white)) (true (control black)))
(<= (next (step ?m)) (does ?r a) (true (step ?n)) (succ ?n ?m))
(<= (next (stopped ?r)) (does ?r b))
(<= terminal (true (stopped ?r))) (<= terminal (true (step {steps})))
(<= (goal ?r 100) (true (stopped ?r)))
(<= (goal ?r 0) (role ?r) (true (stopped ?o)) (distinct ?r ?o))
(<= (goal ?r 50) (role ?r) (true (step {steps})))
(<= (goal ?r 50) (role ?r) (not terminal))
{succ}"""


def test_tree_commands_walk_histories_longer_than_the_recursion_limit(tmp_path, capsys):
    """A game 1,500 decisions long (Python's recursion limit is 1,000): the
    extensive form, the solver, the best responses and the perft walk all
    go down it from explicit stacks."""
    path = tmp_path / "long.kif"
    path.write_text(long_game(1500))
    assert main(["info", str(path), "--tree", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["histories"], data["terminals"]) == (3001, 1501)
    assert data["information_states"] == {"white": 750, "black": 750}
    assert main(["count", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["nodes"], data["terminals"], data["max_depth"]) == (3001, 1501, 1500)
    assert main(["exploit", str(path), "--policy", "uniform", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    # uniform: white stops first with chance 2/3 overall (1/2 + 1/8 + ...)
    assert data["values"]["white"] == pytest.approx(100 * 2 / 3)
    assert main(["solve", str(path), "--iterations", "20", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["values"]["white"] == pytest.approx(100, abs=1)  # white stops at once


def test_a_tree_too_large_is_refused_in_one_line(capsys):
    """Past --max-histories the tree commands refuse in one line: at once
    when the random-path estimate is past twice the limit (connect four:
    about 10^35), else when the count reaches it."""
    for argv in (
        ["info", "connectfour", "--tree"],
        ["solve", "connectfour"],
        ["exploit", "connectfour", "--policy", "uniform"],
    ):
        assert main(argv) != 0
        err = capsys.readouterr().err.strip()
        assert "\n" not in err and "random paths), more than 500,000" in err
        assert err.endswith("(--max-histories N sets the limit)")
    assert main(["info", "kuhn", "--tree", "--max-histories", "40"]) != 0
    err = capsys.readouterr().err.strip()
    assert err == (
        "ggp: the game's extensive form has more than 40 histories; it is too "
        "large to build whole (--max-histories N sets the limit)"
    )
    assert main(["info", "kuhn", "--tree", "--max-histories", "58"]) == 0


def test_info_counts_what_it_can_within_its_effort(capsys):
    """ggp info answers from the rules; the base and input propositions need
    the relaxed domain, which it computes within --ground-effort candidate
    atoms (work, not time: the same answer on a busy machine), else says why
    they are not counted (and exits 0)."""
    assert main(["info", "breakthrough", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["base_propositions"], data["not_counted"]) == (130, None)
    assert main(["info", "breakthrough", "--ground-effort", "100", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["base_propositions"] is None and data["rules"] > 0
    assert data["not_counted"] == (
        "the relaxed domain cannot be computed: the joins examined "
        "more than 100 candidate atoms (at relation 'base') "
        "(--ground-effort N allows more)"
    )


def test_a_build_s_seconds_count_from_its_start_not_from_the_command_s(capsys):
    """``ggp serve`` builds each game it is sent: a server up for minutes
    printed ``building (180 s)`` for a game whose build had just begun."""
    import logging
    import time

    from ggp import load_game
    from ggp.game import games_dir
    from matches import cli

    progress = cli._BuildProgress(after=2.0)
    progress.start -= 180.0  # as if the command had run three minutes
    log = logging.getLogger("ggp.build")
    level = log.level
    log.addHandler(progress)
    log.setLevel(logging.INFO)  # as main() sets it
    try:
        started = time.monotonic()
        load_game((games_dir() / "tictactoe.kif").read_text()).state_machine()
    finally:
        log.removeHandler(progress)
        log.setLevel(level)
    assert progress.start >= started  # the clock restarted when the build began
    err = capsys.readouterr().err
    assert "building (18" not in err


def test_a_build_says_what_it_does_and_its_limits_are_options(capsys, monkeypatch):
    """Once a command has run a couple of seconds (here at once), what the
    game's build is doing goes to stderr when it is a terminal, a line a
    second at most; the grounding limits are options, past which the game
    falls back."""
    from matches import cli

    monkeypatch.setattr(cli._PROGRESS, "after", 0.0)
    assert main(["check", "breakthrough", "--playouts", "1"]) == 0
    assert capsys.readouterr().err == ""  # stderr is not a terminal
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["check", "breakthrough", "--playouts", "1"]) == 0
    err = capsys.readouterr().err.splitlines()
    assert err and all(line.startswith("ggp: building (") for line in err)
    assert "grounding: the static relations" in err[0]
    monkeypatch.setattr(cli._PROGRESS, "after", 2.0)
    from ggp.game import GroundingWarning

    with pytest.warns(
        GroundingWarning,
        match="breakthrough: the relaxed domain cannot be "
        "computed: the joins examined more than 1,000 candidate atoms",
    ):
        assert (
            main(["bench", "breakthrough", "--seconds", "0.1", "--ground-effort", "1000", "--json"])
            == 0
        )
    assert json.loads(capsys.readouterr().out)["reasoner"] == "demand"
    with pytest.warns(GroundingWarning, match="more than 50 facts derived"):
        assert main(["count", "breakthrough", "--depth", "1", "--ground-limit", "100"]) == 0


def test_a_tiny_game_s_match_prints_no_build_progress(capsys, monkeypatch):
    """``ggp play tictactoe uct random`` printed ``ggp: building (3 s)...``:
    nothing of the build goes to a log or a pipe, nor to a terminal for a
    build of a fraction of a second."""
    argv = ["play", "tictactoe", "uct:simulations=50", "random", "--startclock", "1"]
    assert main(argv) == 0
    assert "building (" not in capsys.readouterr().err
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(argv) == 0
    assert "building (" not in capsys.readouterr().err


# --- ggp exploit's three modes --------------------------------------------------------------

EXPLOIT_VALUES = {
    "--episodes": ["10"],
    "--curve": ["x.csv"],
    "--append": ["--curve", "x.csv"],
    "--seed": ["1"],
    "--out": ["p.json"],
    "--save": ["d"],
    "--resume": ["--save", "d"],
    "--online": [],
    "--seeds": ["2"],
    "--budgets": ["10"],
}
EXPLOIT_BASES = {
    "policy": ["--policy", "uniform"],
    "self-play": ["--player", "smooth-uct"],
    "online": ["--player", "mccr", "--online"],
}


@pytest.mark.parametrize(
    "mode, flag",
    [
        (mode, flag)
        for mode in EXPLOIT_BASES
        for flag in EXPLOIT_VALUES
        if flag not in EXPLOIT_MODES[mode] and flag != "--online"  # --online makes the mode
    ],
)
def test_exploit_refuses_a_flag_of_another_mode_in_one_line_naming_it(capsys, mode, flag):
    """``ggp exploit`` is three commands in one (a policy, self-play, an online
    player); each flag belongs to some of them, declared once
    (EXPLOIT_MODES), and one given to another mode is refused before any work
    (``--seed`` with ``--online`` was silently ignored)."""
    argv = ["exploit", "kuhn", *EXPLOIT_BASES[mode], flag, *EXPLOIT_VALUES[flag]]
    assert main(argv) == 1
    line = capsys.readouterr().err.splitlines()
    assert len(line) == 1 and flag in line[0] and line[0].startswith("ggp: ")
