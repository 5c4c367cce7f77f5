"""The Game Description Language: reading, printing and validating GDL and GDL-II.

>>> d = parse("(role x) (<= (legal x go) (true on))")
>>> to_kif(d.rules[1])
'(<= (legal x go)\\n    (true on))'
"""

from gdl.ast import And, Distinct, Not, Or, Position, Rule, Var
from gdl.errors import Diagnostic, GdlError, TooLarge
from gdl.parser import MAX_BYTES, Description, parse, parse_file, parse_term
from gdl.printer import to_kif
from gdl.validate import check, expand, validate

__all__ = [
    "And",
    "Distinct",
    "Not",
    "Or",
    "Position",
    "Rule",
    "Var",
    "Diagnostic",
    "GdlError",
    "TooLarge",
    "MAX_BYTES",
    "Description",
    "parse",
    "parse_file",
    "parse_term",
    "to_kif",
    "check",
    "expand",
    "validate",
]
