"""The shape of what users give in files (match records, study files), checked
before anything uses it.

A schema maps each field to its type and the words that describe it to a
user.  A type is ``str``, ``int``, ``float`` (any number), ``None`` (null),
``[T]`` (a list of T), ``{str: T}`` (a mapping of names to T) or a tuple of
types (any of them).  :func:`check` raises ValueError on one line naming the
field and, inside it, the first value of the wrong type:

>>> check({"moves": [["noop"], [3]]}, {"moves": ([[str]], "a list of lists of moves")})
Traceback (most recent call last):
ValueError: 'moves' must be a list of lists of moves; moves[1][0] is an integer
"""

from __future__ import annotations


def check(data, schema: dict, required=(), what: str = "it must be a mapping") -> dict:
    """``data`` when it is a mapping (else ValueError: ``what``, not ...) whose
    fields have the types of ``schema`` (``{field: (type, description)}``) and
    has the ``required`` fields; fields the schema does not name are not checked."""
    if not isinstance(data, dict):
        raise ValueError(f"{what}, not {_kind(data)}")
    for name, (kind, words) in schema.items():
        if name not in data:
            if name in required:
                raise ValueError(f"'{name}' is required: {words}")
            continue
        wrong = _mismatch(data[name], kind, name)
        if wrong is not None:
            path, value = wrong
            found = f", not {_kind(value)}" if path == name else f"; {path} is {_kind(value)}"
            raise ValueError(f"'{name}' must be {words}{found}")
    return data


def _mismatch(value, kind, path: str):
    """``(path, value)`` of the first part of ``value`` not of type ``kind``, or None."""
    if isinstance(kind, tuple):  # the first alternative that fits, else the
        wrongs = [_mismatch(value, k, path) for k in kind]  # deepest mismatch found
        return None if None in wrongs else max(wrongs, key=lambda w: len(w[0]))
    if isinstance(kind, list):
        if not isinstance(value, list):
            return path, value
        items = ((f"{path}[{i}]", item) for i, item in enumerate(value))
    elif isinstance(kind, dict):
        if not isinstance(value, dict):
            return path, value
        key = next((k for k in value if not isinstance(k, str)), None)
        if key is not None:
            return f"the key {key!r} of {path}", key
        items = ((f"{path}.{k}", item) for k, item in value.items())
    else:
        return None if _is(value, kind) else (path, value)
    (inner,) = kind if isinstance(kind, list) else kind.values()
    return next(
        (
            wrong
            for wrong in (_mismatch(item, inner, where) for where, item in items)
            if wrong is not None
        ),
        None,
    )


def _is(value, kind) -> bool:
    if kind is None:
        return value is None
    if isinstance(value, bool):  # true and false are not numbers
        return kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


def _kind(value) -> str:
    """What a value is, in a user's words."""
    if value is None:
        return "null"
    for kind, words in (
        (bool, "true or false"),
        (int, "an integer"),
        (float, "a number"),
        (str, "a string"),
        (list, "a list"),
        (dict, "a mapping"),
    ):
        if isinstance(value, kind):
            return words
    return f"a {type(value).__name__}"
