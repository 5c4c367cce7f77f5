"""Long commands show their progress (rate and ETA) and keep what is done on Ctrl-C."""

import csv
import io
import time

from ggp.progress import TIMED, Progress
from matches.cli import main
from matches.records import MatchStore


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_shows_rate_and_eta_on_a_terminal_only():
    shown = Terminal()
    with Progress("study tiny", "match", quiet=False, file=shown) as progress:
        progress(2, 10)  # two done before this run: not in the rate
        for done in range(3, 11):
            time.sleep(0.07)
            progress(done)
    text = shown.getvalue()
    assert "study tiny" in text and "/10" in text and "match/s" in text and "<00:0" in text
    for quiet, stream in ((False, io.StringIO()), (True, Terminal())):  # a log; --json
        with Progress("study tiny", "match", quiet=quiet, file=stream) as progress:
            progress(0, 10)
            progress(10)
        assert stream.getvalue() == ""
    timed = Terminal()
    with Progress("bench tictactoe", "s", 1.0, bar_format=TIMED, file=timed) as progress:
        progress(0)
        time.sleep(0.55)  # a redraw every half second at most
        progress(0.5)
    assert "bench tictactoe:  50%" in timed.getvalue()


def test_exploit_interrupted_keeps_its_curve_points(tmp_path, monkeypatch, capsys):
    # Ctrl-C after curve points wrote no curve file and said nothing of them
    from players.learning.selfplay import SelfPlay

    run = SelfPlay.run

    def interrupted(self, episodes):
        if self.episodes >= 2000:
            raise KeyboardInterrupt
        return run(self, episodes)

    monkeypatch.setattr(SelfPlay, "run", interrupted)
    curve = tmp_path / "curve.csv"
    assert (
        main(
            [
                "exploit",
                "kuhn",
                "--player",
                "smooth-uct",
                "--episodes",
                "100000",
                "--curve",
                str(curve),
            ]
        )
        == 130
    )
    assert capsys.readouterr().err == (
        f"ggp: interrupted: 2,000 of 100,000 episodes; 2 curve "
        f"point(s) in {curve} (plot beside it)\n"
    )
    assert [int(r["episodes"]) for r in csv.DictReader(curve.open())] == [1000, 2000]
    assert curve.with_suffix(".png").stat().st_size > 0


def test_solve_interrupted_keeps_its_curve_points(tmp_path, monkeypatch, capsys):
    import ggp.solvers.solve

    evaluate, calls = ggp.solvers.solve.exploitability, []

    def interrupted(tree, policy):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return evaluate(tree, policy)

    monkeypatch.setattr(ggp.solvers.solve, "exploitability", interrupted)
    curve = tmp_path / "curve.csv"
    assert main(["solve", "kuhn", "--iterations", "100000", "--curve", str(curve)]) == 130
    assert capsys.readouterr().err == (
        f"ggp: interrupted: 2 curve point(s) in {curve} (plot beside it)\n"
    )
    assert [int(r["episodes"]) for r in csv.DictReader(curve.open())] == [1000, 2000]


def test_study_interrupted_says_what_it_kept_and_where(tmp_path, monkeypatch, capsys):
    study = tmp_path / "tiny.yaml"
    study.write_text("name: tiny\ngames: [tictactoe]\nplayers: {a: random, b: legal}\nmatches: 6\n")
    add = MatchStore.add

    def interrupted(self, record, **where):
        if self.count("tiny") == 2:
            raise KeyboardInterrupt
        return add(self, record, **where)

    monkeypatch.setattr(MatchStore, "add", interrupted)
    db = tmp_path / "m.sqlite"
    assert main(["study", str(study), "--workers", "1", "--db", str(db)]) == 130
    assert capsys.readouterr().err == (
        f"ggp: interrupted: 2 of 6 matches of tiny kept in {db}; the same command plays the rest\n"
    )


def test_a_study_with_a_random_role_shows_no_none(tmp_path, monkeypatch, capsys):
    """The study's progress line prints no 'None None' (as it once did) for
    kuhn's random role (each match's goals by player name: the random role
    has neither); the bar counts matches, and the tables name the players."""
    import sys

    study = tmp_path / "chance.yaml"
    study.write_text("name: chance\ngames: [kuhn]\nplayers: {a: random, b: legal}\nmatches: 2\n")
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    assert main(["study", str(study), "--workers", "1", "--db", str(tmp_path / "m.sqlite")]) == 0
    shown, out = terminal.getvalue(), capsys.readouterr().out
    assert "study chance" in shown and "/2" in shown and "| kuhn | a | b | 2 |" in out
    assert "None" not in shown + out
