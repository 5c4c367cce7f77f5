"""The plug-in authors' pages run as written, from an empty folder
(docs/write-a-player.md, docs/add-a-reasoner.md): the files the page says to
save are written into a temporary folder, and its commands run in order, here:

* ``python X.py`` runs the script, which imports the module the page wrote
  (its ``@register`` adds the player or reasoner);
* ``pip install -e .`` is not run (too slow for a test): the entry points the
  page's ``pyproject.toml`` declares are written as an installed
  distribution's metadata (``entry_points.txt`` in a ``.dist-info`` folder on
  the path, as pip writes them), what the script imported is forgotten, and
  the registries start again, so that what comes next finds the plug-in through
  its entry point alone, as a command of a fresh process would;
* ``ggp ...`` runs the command line in this process (a documented ``ggp:``
  error must be exactly those lines, exit 1);
* ``python -m pytest ...`` runs the page's tests, which must all pass.

The output a page shows under a command must be what it prints, but for the
lines that change from run to run (:data:`VARIES`).  The commands that are
not run are in :data:`SKIP` with the reason; every command of a page is one
of these kinds.  The registries and the modules the page imported are put
back as they were when the test ends."""

import re
import runpy
import shlex
import sys
from pathlib import Path

import pytest
from snippets import blocks, console, run_ggp

import ggp.reasoners
import players.registry
from ggp.plugins import Registry

#: pyproject.toml is read with Python 3.11's tomllib (the project supports 3.10).
tomllib = pytest.importorskip("tomllib", reason="reading pyproject.toml needs Python 3.11")

DOCS = Path(__file__).resolve().parents[1] / "docs"
PAGES = ["write-a-player.md", "add-a-reasoner.md"]
#: (page, command) -> why it is not run.
SKIP = {
    ("write-a-player.md", "mkdir winfirst && cd winfirst"): "the test's folder is the empty folder",
    ("add-a-reasoner.md", "mkdir counting && cd counting"): "the test's folder is the empty folder",
}
#: Shown output that is not compared: a time.
VARIES = re.compile(r"^seconds: |^\d+ passed in ")
#: The registries a plug-in joins: the module holding each, and its group.
REGISTRIES = {"ggp.players": players.registry, "ggp.reasoners": ggp.reasoners}


def install(folder: Path, site: Path, monkeypatch) -> dict:
    """What ``pip install -e .`` leaves for the registries: the folder on the
    path, and a distribution with the entry points of ``folder/pyproject.toml``.
    Returns them, by group."""
    project = tomllib.loads((folder / "pyproject.toml").read_text())["project"]
    points = project["entry-points"]
    info = site / f"{project['name']}-{project['version']}.dist-info"
    info.mkdir(parents=True)
    info.joinpath("METADATA").write_text(
        f"Metadata-Version: 2.1\nName: {project['name']}\nVersion: {project['version']}\n"
    )
    info.joinpath("entry_points.txt").write_text(
        "".join(
            f"[{group}]\n" + "".join(f"{name} = {value}\n" for name, value in named.items())
            for group, named in points.items()
        )
    )
    monkeypatch.syspath_prepend(str(site))
    return points


@pytest.fixture
def fresh(tmp_path, monkeypatch):
    """The folder the page works in, and a function that forgets what the
    page imported and starts the registries again: they have their built-in
    classes and look for entry points when next asked."""
    folder = tmp_path / "work"
    folder.mkdir()
    built_in = {}
    for group, module in REGISTRIES.items():
        built_in[group] = dict(module.REGISTRY.found())
        # the page's @register adds to the registry: kept in a copy
        monkeypatch.setattr(module.REGISTRY, "classes", dict(built_in[group]))
    monkeypatch.chdir(folder)
    monkeypatch.syspath_prepend(str(folder))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))  # a study's database

    def restart():
        for name, module in list(sys.modules.items()):
            if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
                del sys.modules[name]
        for group, module in REGISTRIES.items():
            registry = Registry(module.REGISTRY.base, module.REGISTRY.package, group)
            registry.classes.update(built_in[group])
            monkeypatch.setattr(module, "REGISTRY", registry)

    yield folder, restart
    restart()


def run_pytest(command: str, capsys) -> int:
    """``python -m pytest ARGS`` here; the number of tests that passed."""

    class Passed:
        count = 0

        def pytest_runtest_logreport(self, report):
            if report.when == "call" and report.passed:
                Passed.count += 1

    status = pytest.main([*shlex.split(command)[3:], "-p", "no:cacheprovider"], plugins=[Passed()])
    out = capsys.readouterr().out
    assert status == 0, out
    return Passed.count


def compared(lines: list) -> list:
    """The lines to compare: those that do not vary, trailing blank lines left out."""
    return "\n".join(line for line in lines if not VARIES.match(line)).rstrip().splitlines()


@pytest.mark.parametrize("page", PAGES)
def test_the_page_runs_from_an_empty_folder(page, fresh, tmp_path, monkeypatch, capsys):
    folder, restart = fresh
    skipped, installed = set(), None
    for language, body, saved in blocks((DOCS / page).read_text()):
        if saved:
            (folder / saved).write_text(body)
            continue
        if language == "python":
            raise AssertionError(f"{page}: a python block that is not saved as a file")
        if language == "sh":
            (command,) = body.strip().splitlines()
            assert (page, command) in SKIP, f"{page}: {command} is neither run nor skipped"
            skipped.add((page, command))
            continue
        if language != "console":
            continue
        for command, shown in console(body):
            errors = [line for line in shown if line.startswith("ggp: ")]
            if command == "pip install -e .":
                restart()
                installed = install(folder, tmp_path / "site", monkeypatch)
                for group, named in installed.items():
                    for name, value in named.items():  # found through the entry point alone
                        module, _, attr = value.partition(":")
                        assert module not in sys.modules
                        found = REGISTRIES[group].REGISTRY.found()[name]
                        assert (found.__module__, found.__name__) == (
                            module,
                            attr or found.__name__,
                        )
            elif command.startswith("ggp "):
                printed = run_ggp(command, errors, capsys)
                if shown and not errors:
                    assert compared(printed) == compared(shown), command
            elif command.startswith("python -m pytest "):
                passed = run_pytest(command, capsys)
                counted = re.search(r"(\d+) passed", "\n".join(shown))
                assert passed == (int(counted[1]) if counted else shown[0].count(".")), command
            elif re.fullmatch(r"python \w+\.py", command):
                runpy.run_path(str(folder / command.split()[1]), run_name="__main__")
                assert capsys.readouterr().out.splitlines() == shown, command
            else:
                raise AssertionError(f"{page}: {command} is neither run nor skipped")
    assert installed, f"{page}: no pip install -e ."
    assert skipped == {k for k in SKIP if k[0] == page}, "a skipped command left the page"
