"""Diagnostics: one line a person can act on, naming file, line and column."""

from __future__ import annotations

from dataclasses import dataclass

from gdl.ast import Position


@dataclass(frozen=True)
class Diagnostic:
    """A finding of the parser or validator.

    ``kind`` names the GDL rule that is broken (``syntax``, ``safety``,
    ``stratification``, ...); ``severity`` is ``"error"`` or ``"warning"``.
    """

    pos: Position
    kind: str
    message: str
    severity: str = "error"

    def __str__(self) -> str:
        return f"{self.pos}: {self.severity}[{self.kind}]: {self.message}"


class GdlError(Exception):
    """Raised for a description that cannot be read or is not valid GDL.

    ``str(error)`` is the first diagnostic's line; ``error.diagnostics`` has all.
    """

    def __init__(self, diagnostics):
        self.diagnostics = tuple(diagnostics)
        super().__init__(str(self.diagnostics[0]))

    @property
    def first(self) -> Diagnostic:
        return self.diagnostics[0]


class TooLarge(GdlError):
    """A description refused for its size, before it is read whole: parsing
    costs about 18 s and 350 MB of memory per MB of GDL (the largest public
    game has 68 kB), so a caller that takes files from anyone bounds them
    (``max_bytes`` of :func:`gdl.parse_file`, ``ggp --max-bytes``)."""
