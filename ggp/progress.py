"""Progress of long work on stderr: how far, how fast, how long still (tqdm).

The long commands (``ggp study``, ``exploit``, ``solve``, ``bench``) hand a
:class:`Progress` to the work as its ``progress`` callback, which the work
calls with how much it has done.  Nothing is drawn when stderr is not a
terminal (a log, a pipe, CI) or with ``quiet`` (``--json``).
"""

from __future__ import annotations

import sys

from tqdm import tqdm

#: For work bounded by time (``--seconds``): the share of it done and the time left.
TIMED = "{desc}: {percentage:3.0f}%|{bar}| {elapsed} < {remaining}{postfix}"


class Progress:
    """A bar for ``desc``, counting ``unit``; ``progress(done, total)`` moves
    it to ``done`` (out of ``total``, given on the first call or here).  The
    bar starts at the first call's ``done``, so that work done before (a
    resumed study's matches) does not count in the rate."""

    def __init__(
        self,
        desc: str,
        unit: str,
        total=None,
        quiet: bool = False,
        bar_format: str | None = None,
        file=None,
    ):
        self.desc, self.unit, self.total, self.quiet = desc, unit, total, quiet
        self.bar_format, self.file, self.bar = bar_format, file, None

    def __call__(self, done, total=None) -> None:
        if self.bar is None:
            total = total if total is not None else self.total
            self.bar = tqdm(
                total=total,
                initial=done,
                desc=self.desc,
                unit=self.unit,
                unit_scale=(total or 0) >= 10_000,
                leave=False,
                dynamic_ncols=True,
                file=self.file or sys.stderr,
                mininterval=0.5,
                bar_format=self.bar_format,
                disable=True if self.quiet else None,
            )
        else:
            self.bar.update(done - self.bar.n)

    def note(self, text: str) -> None:
        """A note after the bar (the last evaluation, say)."""
        if self.bar is not None:
            self.bar.set_postfix_str(text)

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc) -> None:
        if self.bar is not None:
            self.bar.close()
