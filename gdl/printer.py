"""Printing rules and terms back to KIF; ``parse(to_kif(d))`` gives ``d`` back."""

from __future__ import annotations

from gdl.ast import And, Distinct, Not, Or, Rule


def term_to_kif(t) -> str:
    """A term or atom: ``"b"``, ``"?x"``, ``"(cell 1 1 b)"``."""
    if isinstance(t, tuple):
        return "(" + " ".join(term_to_kif(a) for a in t) + ")"
    return str(t)


def literal_to_kif(lit) -> str:
    if isinstance(lit, Not):
        return f"(not {literal_to_kif(lit.literal)})"
    if isinstance(lit, Or):
        return "(or " + " ".join(literal_to_kif(x) for x in lit.literals) + ")"
    if isinstance(lit, And):
        return "(and " + " ".join(literal_to_kif(x) for x in lit.literals) + ")"
    if isinstance(lit, Distinct):
        return f"(distinct {term_to_kif(lit.left)} {term_to_kif(lit.right)})"
    return term_to_kif(lit)


def rule_to_kif(rule: Rule) -> str:
    if not rule.body:
        return term_to_kif(rule.head)
    body = "\n    ".join(literal_to_kif(b) for b in rule.body)
    return f"(<= {term_to_kif(rule.head)}\n    {body})"


def to_kif(obj) -> str:
    """KIF text for a description, a rule, a literal or a term."""
    if isinstance(obj, Rule):
        return rule_to_kif(obj)
    if isinstance(obj, (Not, Or, And, Distinct)):
        return literal_to_kif(obj)
    if isinstance(obj, tuple) and (not obj or isinstance(obj[0], Rule)):
        obj = list(obj)  # a description's rules (``desc.rules``), not a term
    if isinstance(obj, (str, tuple)):
        return term_to_kif(obj)
    return "\n".join(rule_to_kif(r) for r in obj) + "\n"
