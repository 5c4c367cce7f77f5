"""The benchmarks: every measurement of speed and strength a named suite, run
by one harness (:mod:`benchmarks.harness`) that writes every suite's results
the same way.

    python -m benchmarks --list
    python -m benchmarks SUITE [--out DIR] [the suite's options]

docs/benchmarks.md lists the suites, the page quoting each one's figures and
the command that measures them again.
"""
