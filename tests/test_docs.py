"""The documentation against the code: each command's page is its ``--help``,
and the README stays a page a newcomer reads (the site's strict build, with
its links and anchors, runs in ``.ci/run``)."""

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def commands_module():
    spec = importlib.util.spec_from_file_location("docs_commands", ROOT / "docs" / "commands.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_command_page_is_the_command_s_help(monkeypatch):
    monkeypatch.setenv("COLUMNS", "88")
    pages = commands_module().pages()
    from matches.cli import command_parsers

    assert sorted(p.stem for p in pages) == sorted(command_parsers())
    for path, text in pages.items():
        assert path.read_text() == text, f"{path} is stale: python docs/commands.py"


def test_the_check_finds_a_stale_page(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("COLUMNS", "88")
    module = commands_module()
    monkeypatch.setattr(module, "HERE", tmp_path)
    (tmp_path / "commands").mkdir()
    assert module.main(["--check"]) == 1
    assert module.main([]) == 0 and module.main(["--check"]) == 0
    page = tmp_path / "commands" / "play.md"
    page.write_text(page.read_text().replace("--playclock", "--clock"))
    assert module.main(["--check"]) == 1
    assert "play.md: differs" in capsys.readouterr().out


def test_every_command_has_a_page_in_the_site_s_navigation():
    from matches.cli import command_parsers

    nav = (ROOT / "mkdocs.yml").read_text()
    for name in command_parsers():
        assert f"commands/{name}.md" in nav


def test_the_readme_is_short_and_holds_the_two_commands_ci_runs():
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 200
    ci = (ROOT / ".ci" / "run").read_text()
    test_command = re.search(r"```sh\n(python -m pytest[^\n]*)\n```", readme)[1]
    assert test_command in ci.splitlines()
    assert "pip install -e '.[test,docs]' && ggp play tictactoe random random" in readme


def test_every_page_the_readme_links_exists():
    readme = (ROOT / "README.md").read_text()
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme)
    assert links
    for link in links:
        assert (ROOT / link).exists(), link


def test_no_page_shows_a_backslash_before_a_pipe():
    """A pipe in code in a table cell needs no escape (the tables extension
    does not split a row inside backticks), and there ``\\|`` is drawn as
    it is: the tour's command syntax showed ``compiled\\|reference``."""
    markdown = pytest.importorskip("markdown")
    extensions = ["tables", "admonition", "pymdownx.superfences", "pymdownx.highlight"]
    for path in sorted((ROOT / "docs").rglob("*.md")):
        html = markdown.markdown(path.read_text(), extensions=extensions)
        shown = re.sub(r"<pre.*?</pre>", "", html, flags=re.S)  # code blocks show it on purpose
        for line in shown.splitlines():
            assert "\\|" not in line, f"{path.relative_to(ROOT)}: {line}"


def test_the_players_table_has_a_row_for_every_player():
    """The table at the top of the players page left out nfsp and mc-nfsp."""
    from players.registry import REGISTRY, names

    names()  # the registry finds its players
    ours = {n for n, cls in REGISTRY.classes.items() if cls.__module__.startswith("players.")}
    text = (ROOT / "docs" / "players.md").read_text()
    table = text.split("| spec | what it is |")[1].split("\n\n")[0]
    listed = {
        n for row in table.splitlines() for n in re.findall(r"`([\w-]+)`", row.split(" | ")[0])
    }
    assert ours <= listed, f"players.md's table lacks {sorted(ours - listed)}"
