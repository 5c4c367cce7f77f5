"""House rules checked over the source.

The tracked files name no folder of this machine and tell no work history:
``git grep`` over them finds no absolute path under the folder that holds the
repository or the shared test material, and no "issue N" or "session N".
The recorded results in benchmarks/results are searched too: they hold
relative paths and game names, so nothing there needs excluding.

No call in the packages ggp, players and matches passes more than
:data:`MOST_POSITIONAL` arguments by position: a longer list is given by
keyword or as one object of options.  In the Cython modules the calls of C
functions (``cdef`` in the module, or cimported) are left out: they are the
kernels' inner loops, whose arguments are C values.
"""

import ast
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from ggp.shared import DEFAULT

ROOT = Path(__file__).resolve().parents[1]
#: The packages whose calls are checked.
PACKAGES = ("ggp", "players", "matches")
#: The most arguments a call may pass by position.
MOST_POSITIONAL = 7

needs_git = pytest.mark.skipif(
    shutil.which("git") is None or not (ROOT / ".git").exists(),
    reason="git or the repository's .git is unavailable",
)


def git_grep(*argv: str) -> list[str]:
    """The lines of the tracked files ``git grep`` finds with ``argv``."""
    out = subprocess.run(
        ["git", "grep", "-n", *argv], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert out.returncode in (0, 1), out.stderr  # 1: nothing found
    return out.stdout.splitlines()


def machine_folders() -> set[str]:
    """The folders whose absolute paths would be this machine's: the one that
    holds the repository and the one that holds the shared test material (its
    real place, links followed).  The root and the temporary folder are left
    out: there, as in ``--csv /tmp/gdl1.csv``, a path is anyone's example."""
    general = {Path("/"), Path(tempfile.gettempdir()).resolve()}
    folders = {ROOT.parent, DEFAULT.resolve().parent.parent}
    return {f"{folder}/" for folder in folders - general}


@needs_git
@pytest.mark.parametrize("folder", sorted(machine_folders()))
def test_no_path_of_this_machine(folder):
    assert git_grep("-F", folder) == []


@needs_git
def test_no_work_history():
    assert git_grep("-i", "-E", "issue [0-9]|session [0-9]") == []


def sources(suffix: str) -> list[Path]:
    """The files of :data:`PACKAGES` whose names end in ``suffix``."""
    return sorted(f for package in PACKAGES for f in (ROOT / package).rglob(f"*{suffix}"))


def long_python_calls(path: Path) -> list[str]:
    """``file:line`` of each call in the Python module ``path`` with more than
    :data:`MOST_POSITIONAL` positional arguments."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    return [
        f"{path.relative_to(ROOT)}:{node.lineno}"
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and len(node.args) > MOST_POSITIONAL
    ]


def long_cython_calls(path: Path) -> list[str]:
    """``file:line`` of each Python-level call in the Cython module ``path``
    with more than :data:`MOST_POSITIONAL` positional arguments; a call of a C
    function (``cdef`` in the module, or cimported), by name or as a method
    of ``self``, is left out."""
    from Cython.Compiler import ExprNodes, Nodes
    from Cython.Compiler.TreeFragment import parse_from_strings

    nodes, stack = [], [parse_from_strings(str(path), path.read_text(encoding="utf-8"))]
    while stack:
        node = stack.pop()
        nodes.append(node)
        for attr in node.child_attrs:
            child = getattr(node, attr, None)
            children = child if isinstance(child, list) else [child]
            stack += [c for c in children if isinstance(c, Nodes.Node)]
    c_functions = set()
    for node in nodes:
        if isinstance(node, Nodes.CFuncDefNode):
            declarator = node.declarator
            while not hasattr(declarator, "name"):  # through pointer and function declarators
                declarator = declarator.base
            c_functions.add(declarator.name)
        elif isinstance(node, Nodes.FromCImportStatNode):
            c_functions |= {as_name or name for _, name, as_name in node.imported_names}
    found = []
    for node in nodes:
        if isinstance(node, ExprNodes.SimpleCallNode):
            args = node.args
        elif isinstance(node, ExprNodes.GeneralCallNode) and isinstance(
            node.positional_args, ExprNodes.TupleNode
        ):
            args = node.positional_args.args
        else:
            continue
        function = node.function
        if isinstance(function, ExprNodes.NameNode):
            name = function.name
        elif (
            isinstance(function, ExprNodes.AttributeNode)
            and getattr(function.obj, "name", None) == "self"
        ):
            name = function.attribute
        else:
            name = None
        if len(args) > MOST_POSITIONAL and name not in c_functions:
            found.append(f"{path.relative_to(ROOT)}:{node.pos[1]}")
    return found


def test_no_call_passes_more_than_seven_arguments_by_position():
    assert [at for path in sources(".py") for at in long_python_calls(path)] == []


def test_no_python_level_call_in_the_cython_modules_passes_more_than_seven_by_position():
    pytest.importorskip("Cython")
    assert [at for path in sources(".pyx") for at in long_cython_calls(path)] == []
