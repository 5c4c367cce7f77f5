"""MkDocs hook: the site also serves the benchmark results the pages cite.

The plots, tables and rows under ``benchmarks/results`` are written there by
the benchmark harness and stay there; the pages link them as ``results/...``, and
this hook adds those files to the build, so that a link to a result that does
not exist fails the strict build like any other broken link.

The docstrings cite names the Sphinx way (``:class:`Game```); the API page
shows the name alone.
"""

import re
from pathlib import Path

from mkdocs.structure.files import File

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks"
SERVED = {".png", ".csv", ".svg", ".gz"}


def on_files(files, config):
    for path in sorted((RESULTS / "results").rglob("*")):
        if path.suffix in SERVED:
            files.append(
                File(
                    str(path.relative_to(RESULTS)),
                    src_dir=str(RESULTS),
                    dest_dir=config["site_dir"],
                    use_directory_urls=config["use_directory_urls"],
                )
            )
    return files


SPHINX_ROLE = re.compile(r":(?:py:)?(?:class|func|meth|mod|attr|data|exc|obj):(?=<code>)")


def on_page_content(html, page, config, files):
    return SPHINX_ROLE.sub("", html)
