"""The design interface: a population maps to the exact law of its sample (docs/foundations.md#relations).

A sample is a count vector over an ordered universe of record types. Designs never know
about mechanisms. Every design also has a naive enumerator over individual records, used
only as a test oracle on tiny populations (see `tests/oracles/naive_designs.py`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any, ClassVar

from verifydp.exact.dist import FiniteDist
from verifydp.population import CountVector, Population, Universe


class DesignError(ValueError):
    """A design applied outside its domain (e.g. m > |P|)."""


class Design(ABC):
    """A sampling design. Subclasses are frozen dataclasses registered by `kind`."""

    kind: ClassVar[str]
    registry: ClassVar[dict[str, type[Design]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "kind" in cls.__dict__:
            Design.registry[cls.kind] = cls

    @abstractmethod
    def sample_law(self, pop: Population, universe: Universe) -> FiniteDist[CountVector]:
        """Exact law of the sample as a count vector over `universe` (symmetry-reduced)."""

    @abstractmethod
    def params(self) -> dict[str, Any]:
        """JSON-serialisable parameters; `Design.from_json` must invert `to_json`."""

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **self.params()}

    @staticmethod
    def from_json(obj: dict[str, Any]) -> Design:
        kind = obj.get("kind")
        if kind not in Design.registry:
            raise DesignError(f"unknown design kind {kind!r}; known: {sorted(Design.registry)}")
        cls = Design.registry[kind]
        return cls.from_params({k: v for k, v in obj.items() if k != "kind"})

    @classmethod
    @abstractmethod
    def from_params(cls, params: dict[str, Any]) -> Design:
        """Inverse of `params`."""

    def describe(self) -> str:
        args = ", ".join(f"{k}={v}" for k, v in self.params().items())
        return f"{self.kind}({args})"
