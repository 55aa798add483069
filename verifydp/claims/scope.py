"""The declared domain of a claim: what the printed statement quantifies over, and which part
of it the checker covers (docs/foundations.md#verdicts, #claims).

A verdict `holds-on-instance` is worth exactly as much as the instances behind it. A `Scope`
states, as data, the printed statement's quantifiers — the class of base mechanisms, the
neighbouring relation(s) (of the base mechanism and of the population pair), the populations,
the designs and the parameters — and for each one what the checker covers and how:
``exhaustive`` (every case of a finite printed domain), ``grid`` (named finite instances),
``proof`` (a symbolic proof, or a cited reduction to the covered cases) or ``not covered``
(with the reason). `narrowings` lists every place where the checker covers less than the
print says; each quotes the paper's words that make the wider statement, so a narrowing is
never invented.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

How = Literal["exhaustive", "grid", "proof", "not covered"]
HOWS: tuple[How, ...] = ("exhaustive", "grid", "proof", "not covered")

Status = Literal["being widened", "widened", "justified", "left"]
STATUSES: tuple[Status, ...] = ("being widened", "widened", "justified", "left")


@dataclass(frozen=True)
class Quantifier:
    """One quantifier of a printed statement: the printed domain, the covered part, how it
    is covered, and a note (required when something is not covered: the reason)."""

    printed: str
    covered: str
    how: How
    note: str = ""

    def __post_init__(self) -> None:
        if self.how not in HOWS:
            raise ValueError(f"how must be one of {HOWS}, not {self.how!r}")
        if self.how == "not covered" and not self.note:
            raise ValueError(f"a quantifier not covered needs its reason: {self.printed!r}")

    def to_json(self) -> dict[str, str]:
        out = {"printed": self.printed, "covered": self.covered, "how": self.how}
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Narrowing:
    """The checker covers less than the print: `what` is covered less, `quote` is the paper's
    words that state the wider domain (verbatim, up to whitespace), `reason` why it is left
    narrow or how it is being widened, `status` and `who` fixes it."""

    what: str
    quote: str
    reason: str
    status: Status
    who: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, not {self.status!r}")
        if not (self.what and self.quote and self.reason):
            raise ValueError("a narrowing needs what, the paper's words and a reason")

    def to_json(self) -> dict[str, str]:
        out = {"what": self.what, "quote": self.quote, "reason": self.reason,
               "status": self.status}
        if self.who:
            out["who"] = self.who
        return out

    def line(self) -> str:
        return f"{self.what} [{self.status}]"


NA = Quantifier("—", "—", "exhaustive", "the statement has no such quantifier")


@dataclass(frozen=True)
class Scope:
    """The declared domain of one claim (see the module docstring)."""

    claim: str
    mechanisms: Quantifier
    relations: Quantifier
    populations: Quantifier
    designs: Quantifier
    parameters: tuple[Quantifier, ...]
    narrowings: tuple[Narrowing, ...] = field(default=())

    def quantifiers(self) -> tuple[tuple[str, Quantifier], ...]:
        fixed = (("mechanisms", self.mechanisms), ("relations", self.relations),
                 ("populations", self.populations), ("designs", self.designs))
        return fixed + tuple(("parameters", q) for q in self.parameters)

    def not_covered(self) -> tuple[str, ...]:
        """What a `holds-on-instance` verdict does not speak for: every quantifier not fully
        covered (grid or not covered) and every narrowing."""
        out = [f"{name}: {q.printed} — {'not covered' if q.how == 'not covered' else 'grid'}: "
               f"{q.covered}{f' ({q.note})' if q.note else ''}"
               for name, q in self.quantifiers() if q.how in ("grid", "not covered")]
        out += [f"narrowing: {n.line()}" for n in self.narrowings]
        return tuple(out)

    def to_json(self) -> dict[str, Any]:
        return {
            "mechanisms": self.mechanisms.to_json(),
            "relations": self.relations.to_json(),
            "populations": self.populations.to_json(),
            "designs": self.designs.to_json(),
            "parameters": [q.to_json() for q in self.parameters],
            "narrowings": [n.to_json() for n in self.narrowings],
        }


def q(printed: str, covered: str, how: How, note: str = "") -> Quantifier:
    """Shorthand for the scope tables."""
    return Quantifier(printed, covered, how, note)


__all__ = ["HOWS", "NA", "STATUSES", "Narrowing", "Quantifier", "Scope", "q"]
