"""Classes that register themselves where they are defined, found by name:
the one mechanism behind the reasoners (:mod:`ggp.reasoners`) and the players
(:mod:`players.registry`).

A :class:`Registry` holds the subclasses of ``base`` by name.  A class joins
it with :meth:`Registry.register` used as a decorator.  The first time the
registry is asked, it imports every public module of its package (so that
their decorators run), then loads the entry points of its group from the
installed distributions, so that a package outside this repository adds a
class by declaring one (``group = name = module:Class``); an entry point that
loads a module instead registers what that module registers.
"""

from __future__ import annotations

import importlib
import pkgutil
from importlib.metadata import entry_points
from typing import Generic, TypeVar, cast

T = TypeVar("T")


class Registry(Generic[T]):
    """The ``base`` subclasses registered by name; ``package`` (its dotted
    name) holds the built-in ones, the entry-point ``group`` the others.
    Declared as ``Registry[Base]`` where it is made (``base`` is often an
    abstract class, which mypy does not accept where it would infer ``T``)."""

    def __init__(self, base: type, package: str, group: str):
        self.base, self.package, self.group = base, package, group
        self.classes: dict[str, type[T]] = {}
        self._found = False

    def register(self, cls: type | None = None, name: str | None = None):
        """Add ``cls`` under ``name`` (default its ``name``); usable as
        ``@register`` or ``register(cls, name)``.  Returns the class."""

        def add(cls: type) -> type:
            if not (isinstance(cls, type) and issubclass(cls, self.base)):
                raise TypeError(f"{cls!r} is not a {self.base.__name__} class")
            # a subclass of ``base`` (checked above), which is what T stands for
            self.classes[name or cls.name] = cast("type[T]", cls)  # type: ignore[attr-defined]
            return cls

        return add if cls is None else add(cls)

    def found(self) -> dict[str, type[T]]:
        """Every registered class by name, the package's modules and the
        installed plug-ins imported the first time; ValueError (one line) for
        an entry point that does not load."""
        if not self._found:
            self._found = True
            package = importlib.import_module(self.package)
            for module in pkgutil.walk_packages(package.__path__, self.package + "."):
                if not module.name.rpartition(".")[2].startswith("_"):
                    importlib.import_module(module.name)
            for point in entry_points(group=self.group):
                try:
                    loaded = point.load()
                except Exception as exc:  # a broken plug-in is one line, not a crash
                    raise ValueError(
                        f"the {self.group} entry point {point.name!r} "
                        f"({point.value}) could not be loaded: {exc}"
                    ) from None
                if isinstance(loaded, type):
                    self.register(loaded, point.name)
        return self.classes
