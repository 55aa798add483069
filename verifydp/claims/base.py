"""Claims as data plus a checker, and the verdicts they produce (docs/foundations.md#verdicts, #claims)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Any

from verifydp.exact.numtext import json_number, readable
from verifydp.witness import KindWitness, Witness
from verifydp.witness.instance import InstanceWitness


class Verdict(str, Enum):
    REFUTED = "refuted"
    HOLDS = "holds-on-instance"
    PROVED = "proved"
    INCONCLUSIVE = "inconclusive"


@dataclass(frozen=True)
class InstanceResult:
    """One checked instance: its parameters, its verdict and the numbers behind it."""

    params: dict[str, Any]
    verdict: Verdict
    claimed: str
    actual: str
    note: str = ""
    witness: Witness | KindWitness | None = field(default=None, compare=False)
    # actual − claimed (relative for ratio bounds), > 0 exactly when violated; the hunt climbs it
    margin: float | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, Any]:
        # numbers in the one JSON format (`verifydp.exact.numtext`, issue 27): a parameter
        # or an actual value some checker wrote as `0.672640` or `7.26582e-08` reads
        # `0.67264`, `7.26582e-8`; exact rationals stay "p/q". `claimed` is left as written:
        # a printed table cell's digits ("0.370") are what is judged
        out: dict[str, Any] = {
            "params": {k: json_number(v) if isinstance(v, str) else v
                       for k, v in self.params.items()},
            "verdict": self.verdict.value,
            "claimed": self.claimed,
            "actual": json_number(self.actual),
        }
        if self.note:
            out["note"] = self.note
        return out


@dataclass(frozen=True)
class Statement:
    """One printed statement inside a claim (a part, a table cell, a sentence)."""

    text: str
    verdict: Verdict
    instances: tuple[InstanceResult, ...] = ()
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"statement": self.text, "verdict": self.verdict.value}
        if self.note:
            out["note"] = self.note
        if self.instances:
            out["instances"] = [i.to_json() for i in self.instances]
        return out


@dataclass(frozen=True)
class ClaimResult:
    claim: str
    verdict: Verdict
    statements: tuple[Statement, ...]
    witness: Witness | KindWitness | None = None
    seconds: float = 0.0
    lp_sizes: tuple[int, ...] = ()

    @property
    def instances(self) -> list[InstanceResult]:
        return [i for s in self.statements for i in s.instances]

    def summary(self) -> str:
        n = len(self.instances)
        if self.verdict is Verdict.REFUTED:
            bad = [s for s in self.statements if s.verdict is Verdict.REFUTED]
            return f"{bad[0].note or bad[0].text}"
        if self.verdict is Verdict.HOLDS:
            held = sum(i.verdict in (Verdict.HOLDS, Verdict.PROVED) for i in self.instances)
            if held == n:
                return f"holds on all {n} instances checked"
            reasons = sorted({i.note for i in self.instances if i.verdict is Verdict.INCONCLUSIVE})
            return (
                f"holds on {held} of {n} instances; the other {n - held} are inconclusive: "
                + "; ".join(reasons)
            )
        if self.verdict is Verdict.PROVED:
            return "; ".join(s.note or s.text for s in self.statements)
        return "; ".join(s.note for s in self.statements if s.note) or "inconclusive"

    def to_json(self, witness_path: str | None = None) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "verdict": self.verdict.value,
            "instances": [i.to_json() for i in self.instances],
            "witness": witness_path if witness_path else (
                self.witness.to_json() if self.witness else None
            ),
            "detail": {
                "summary": self.summary(),
                "statements": [s.to_json() for s in self.statements],
                "seconds": round(self.seconds, 3),
                "lp_points_max": max(self.lp_sizes, default=0),
            },
        }


def combine(statements: Iterable[Statement]) -> Verdict:
    """A claim is refuted when any statement is; proved/holds only when all are."""
    verdicts = [s.verdict for s in statements]
    if Verdict.REFUTED in verdicts:
        return Verdict.REFUTED
    if Verdict.INCONCLUSIVE in verdicts or not verdicts:
        return Verdict.INCONCLUSIVE
    if all(v is Verdict.PROVED for v in verdicts):
        return Verdict.PROVED
    return Verdict.HOLDS


def aggregate(instances: Iterable[InstanceResult]) -> Verdict:
    """Verdict of one statement from its instances (docs/foundations.md#claims)."""
    inst = list(instances)
    verdicts = {i.verdict for i in inst}
    if Verdict.REFUTED in verdicts:
        return Verdict.REFUTED
    if Verdict.HOLDS in verdicts:
        # "holds" is stated for the instances that held; the others are listed with their
        # reason (typically a bound attained exactly at an irrational e^ε, where certified
        # brackets of two equal numbers cannot be separated).
        return Verdict.HOLDS
    if verdicts and verdicts <= {Verdict.PROVED}:
        return Verdict.PROVED
    return Verdict.INCONCLUSIVE


def statement(text: str, results: Sequence[InstanceResult], note: str = "") -> Statement:
    """A printed statement judged by its instances; a refutation names its first witness."""
    verdict = aggregate(results)
    if verdict is Verdict.REFUTED and not note:
        bad = next(i for i in results if i.verdict is Verdict.REFUTED)
        note = (f"violated at {params_text(bad.params)}: claimed {readable(bad.claimed)}, "
                f"actual {readable(bad.actual)}")
    return Statement(text, verdict, tuple(results), note)


def params_text(params: Mapping[str, Any]) -> str:
    """"n = 2, t(m) = point(1), e^ε = 1.1": an instance's parameters as the table shows them,
    numbers as decimals (a dict's repr, quotes and braces, and exact rationals such as
    8/1875 are for programs: the JSON `params` keep them; issue 27). ε given by t = e^ε,
    stored as `epsilon = t=2`, reads `e^ε = 2`."""
    parts = []
    for k, v in params.items():
        text = str(v)
        if k == "epsilon" and text.startswith(("t=", "ε=")):
            k, text = ("e^ε" if text[0] == "t" else "ε"), text[2:]
        parts.append(f"{k} = {readable(text)}")
    return ", ".join(parts) or "no parameters"


@dataclass(frozen=True)
class Budget:
    """Wall-clock budget for a check; instance loops stop when it is spent."""

    seconds: float | None = None
    fail_fast: bool = False  # stop a statement at its first refutation (mutant tests)
    start: float = field(default_factory=time.monotonic)

    def spent(self) -> bool:
        return self.seconds is not None and time.monotonic() - self.start > self.seconds


def with_spaces(claims: Iterable[Claim], spaces: Mapping[str, SearchSpace]) -> list[Claim]:
    """The claims, each carrying its search space from `spaces` (keyed by claim id)."""
    return [replace(c, space=spaces.get(c.id, c.space)) for c in claims]


def _instance_witness(res: ClaimResult) -> KindWitness | None:
    """The first refuted instance as a replayable witness (claims without a dataset witness)."""
    for st in res.statements:
        for i in st.instances:
            if i.verdict is Verdict.REFUTED:
                return InstanceWitness(res.claim, st.text, i.params, i.claimed, i.actual, i.note)
    for st in res.statements:  # refuted as a whole (e.g. "no such ε exists"): no parameters
        if st.verdict is Verdict.REFUTED:
            return InstanceWitness(res.claim, st.text, {}, st.text, st.note)
    return None


Params = dict[str, Any]


@dataclass(frozen=True)
class SearchSpace:
    """Where a claim's statement can be searched beyond its checker's grid: a hypothesis
    strategy over the statement's parameters, and an evaluator that judges one drawn point
    with the claim's own certified checker (so a violation found by `verifydp hunt` is as
    certified as one found by `check`; docs/foundations.md#search). `size` is what shrinking
    reduces (the records of the two datasets, or n for formula claims)."""

    strategy: Any  # hypothesis.strategies.SearchStrategy[Params]
    evaluate: Callable[[Params], InstanceResult]
    size: Callable[[Params], int]
    text: str


@dataclass(frozen=True)
class Claim:
    """A published statement, encoded exactly as printed, with its checker and, where it has
    one, the space `verifydp hunt` searches."""

    id: str
    paper: str
    where: str
    summary: str
    printed: str  # the statement as printed (LaTeX where the paper has formulas)
    checker: Callable[[Budget], ClaimResult] = field(compare=False)
    space: SearchSpace | None = field(default=None, compare=False)

    def check(self, budget: Budget | None = None) -> ClaimResult:
        start = time.monotonic()
        budget = budget or Budget()
        res = self.checker(
            Budget(budget.seconds, budget.fail_fast, start)
        )
        witness = res.witness
        if witness is None and res.verdict is Verdict.REFUTED:
            witness = (next((i.witness for i in res.instances
                             if i.verdict is Verdict.REFUTED and i.witness), None)
                       or _instance_witness(res))
        return ClaimResult(
            res.claim, res.verdict, res.statements, witness,
            time.monotonic() - start, res.lp_sizes,
        )
