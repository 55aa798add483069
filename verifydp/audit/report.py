"""The audit report: data, JSON and the terminal table (issues 6, 14 and 17).

Numbers: e^{ε'} brackets are exact rationals (certified); ε' is their logarithm, bracketed
rigorously and printed rounded outward. In `--json` every certified number has one shape,
`{"lo": "exact or decimal string", "hi": ..., "lo_float": ..., "hi_float": ...}` (decimal
strings are rounded outward, so the bracket they print still encloses the number).

Verdict words, per ε of the grid (docs/foundations.md#verdicts): the design *degrades*
privacy when the certified lower bound of the exact worst case exceeds e^ε, *amplifies* it
when the certified upper bound is below e^ε, does *neither* when the whole bracket lies within
10⁻⁹ (relative) of e^ε, and the effect is *undetermined* when the bracket straddles e^ε — the
report then says why and how wide the bracket is. A catalogued theorem's bound that lies below
the certified lower bound on the instance (or a lower bound above the certified upper bound)
is a *contradiction*: a refutation of that application, reported with its numbers and never
counted as "met".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from verifydp.exact.interval import Bracket
from verifydp.exact.numtext import bracket_text, decimal_string, number_text
from verifydp.exact.special import brackets_for_eps, log_bracket
from verifydp.worstcase import AcceptanceWitness

if TYPE_CHECKING:
    from verifydp.audit.bounds import Bound
    from verifydp.audit.deployment import Deployment
    from verifydp.audit.flags import Flag
    from verifydp.audit.instance import FullSizeAnswer, Instance, Scenario
    from verifydp.audit.spec import AuditSpec
    from verifydp.population import Population
    from verifydp.witness import Witness

NEITHER_TOL = Fraction(1, 10**9)  # |ε' − ε| below this (relative, on e^ε') reads as "neither"
DIGITS = 12  # significant digits of the decimal strings in --json
EFFECT_WORDS = {"degrades": "degrades", "amplifies": "amplifies",
                "neither": "neither amplifies nor degrades",
                "undetermined": "undetermined"}


def exact_text(x: Fraction) -> str:
    """A rational as the user would write it: 1/4 → "0.25", 1/3 → "1/3", 2 → "2"."""
    if x.denominator == 1:
        return str(x.numerator)
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1:  # a terminating decimal: print it exactly
        return format(Decimal(x.numerator) / Decimal(x.denominator), "f")
    return str(x)


def decimal_text(x: Fraction) -> str:
    """A rational for people: exactly when it is a short terminating decimal (0.25, 0.0073),
    else as a decimal of 6 significant digits (24/241 → 0.0995851), never as a fraction; the
    JSON keeps `exact_text` beside the floats."""
    text = exact_text(x)
    return text if "/" not in text and len(text) <= 12 else number_text(float(x))


def _decimal(x: Fraction, up: bool) -> str:
    return decimal_string(x, up, DIGITS)


def _num(x: Fraction | None, up: bool) -> str | None:
    if x is None:
        return None if not up else "inf"
    if x.denominator <= 10**6 and abs(x.numerator) < 10**12:
        return str(x)
    return _decimal(x, up)


def bracket_json(lo: Fraction | None, hi: Fraction | None) -> dict[str, Any]:
    """The one JSON shape of a certified number: exact strings when short, otherwise decimal
    strings rounded outward; floats for plotting. `hi = None` is +∞."""
    return {"lo": _num(lo, False) if lo is not None else "-inf", "hi": _num(hi, True),
            "lo_float": -math.inf if lo is None else float(lo),
            "hi_float": math.inf if hi is None else float(hi)}


def log_json(lo: Fraction | None, hi: Fraction | None) -> dict[str, Any]:
    """ε' = log e^{ε'} for a certified bracket of e^{ε'} (rigorous log, outward decimals)."""
    return bracket_json(None if lo is None or lo <= 0 else log_bracket(lo).lo,
                        None if hi is None else log_bracket(hi).hi)


def bound_json(b: Bound, eps: Fraction) -> dict[str, Any]:
    """A catalogued theorem in --json: the verdict on its hypotheses and its bracket at ε."""
    br = b.eps_prime(eps)
    out: dict[str, Any] = {
        "claim": b.claim, "direction": b.direction, "applies": b.applies, "reason": b.reason,
        "eps_prime": None if br is None else bracket_json(br.lo, br.hi),
        "hypotheses": [c.to_json() for c in b.checks],
    }
    if b.params:
        out["params"] = {k: str(v) for k, v in b.params.items()}
    if b.delta_prime is not None:
        out["delta_prime"] = bracket_json(b.delta_prime.lo, b.delta_prime.hi)
    if b.note:
        out["note"] = b.note
    return out


def _log(x: Fraction | None) -> float | None:
    """ε' = log of a ratio bound (None = ∞ stays None; display only)."""
    return None if x is None else math.log(x) if x > 0 else -math.inf


def _show(x: float | None, digits: int = 4) -> str:
    return "∞" if x is None or x == math.inf else f"{x:.{digits}g}"


def population_text(pop: Population) -> str:
    """"39 × a, 1 × x (stratum s)" — a population in words, not as raw dicts."""
    parts = []
    for rt, c in pop.entries:
        where = ", ".join(f"{k} {v}" for k, v in (("stratum", rt.stratum),
                                                   ("cluster", rt.cluster)) if v is not None)
        parts.append(f"{c} × {rt.value}" + (f" ({where})" if where else ""))
    return ", ".join(parts) or "empty"


def effect_of(lower: Fraction | None, upper: Fraction | None, t_lo: Fraction,
              t_hi: Fraction) -> str:
    """The effect on the instance at one ε from certified brackets only (module docstring)."""
    if lower is None or lower > t_hi:
        return "degrades"
    if upper is not None and upper < t_lo:
        return "amplifies"
    if upper is not None and lower >= t_lo * (1 - NEITHER_TOL) and \
            upper <= t_hi * (1 + NEITHER_TOL):
        return "neither"
    return "undetermined"


@dataclass(frozen=True)
class ExactPoint:
    """Exact worst-case ratio e^{ε'} ∈ [lower, upper] at t_lo ≤ e^ε ≤ t_hi (None: ∞).

    `eps` is the ε the user asked for, exactly (grid labels print it, not log t)."""

    label: float  # ε (display)
    t_lo: Fraction
    t_hi: Fraction
    lower: Fraction | None
    upper: Fraction | None
    scenario: Scenario
    direction: str
    witness: AcceptanceWitness | None = field(compare=False)
    lp_points: int = 0
    eps: Fraction | None = None

    def beats(self, other: ExactPoint) -> bool:
        if self.lower is None:
            return other.lower is not None or (self.upper is None)
        return other.lower is not None and self.lower > other.lower

    @property
    def eps_text(self) -> str:
        return decimal_text(self.eps) if self.eps is not None else f"{self.label:.4g}"

    @property
    def eps_json(self) -> str:
        return exact_text(self.eps) if self.eps is not None else f"{self.label:.4g}"

    @property
    def effect(self) -> str:
        return effect_of(self.lower, self.upper, self.t_lo, self.t_hi)

    @property
    def precise(self) -> bool:
        """Whether the bracket of ε' is narrow enough to read as a value: at most
        max(1/100, ε/10) wide (an infinite or undetermined bracket is not)."""
        if self.lower is None or self.upper is None:
            return self.lower is None  # ε' = ∞ is certified exactly
        eps = self.eps if self.eps is not None else Fraction(self.label)
        lo = log_bracket(self.lower).lo if self.lower > 0 else None
        hi = log_bracket(self.upper).hi
        return lo is not None and hi - lo <= max(Fraction(1, 100), eps / 10)

    def why_inconclusive(self) -> str:
        """Why the bracket decides nothing at this ε, or is too wide to give ε' (empty when
        it is conclusive). The certificates are exact; their width comes from the float LP
        solution they are built from (verifydp.worstcase.certify)."""
        ends = f"[{_show(self.eps_prime_lower())}, {_show(self.eps_prime_upper())}]"
        if self.effect == "undetermined":
            return (f"at ε = {self.eps_text} the certified bracket ε' ∈ {ends} contains ε: "
                    "the exact certificates built from the float LP solution are too loose "
                    "to decide, so the effect is inconclusive there")
        if not self.precise:
            return (f"at ε = {self.eps_text} the certified bracket ε' ∈ {ends} is too wide to "
                    f"give a value (wider than max(0.01, ε/10)): the effect "
                    f"({self.effect}) is certified, the value of ε' is inconclusive there")
        return ""

    def eps_prime_lower(self) -> float | None:
        return _log(self.lower)

    def eps_prime_upper(self) -> float | None:
        return _log(self.upper)

    def ratio_text(self) -> str:
        if self.lower is None:
            return "ε' = ∞ (the samples of P and P' have disjoint supports)"
        return eps_prime_text(self.lower, self.upper)

    def to_json(self) -> dict[str, Any]:
        return {
            "eps": self.eps_json, "e_eps": bracket_json(self.t_lo, self.t_hi),
            "ratio": bracket_json(self.lower, self.upper),
            "eps_prime": log_json(self.lower, self.upper),
            "effect": self.effect, "precise": self.precise,
            "inconclusive": self.why_inconclusive() or None, "pair": self.scenario.label,
            "direction": self.direction,
            "lp_points": self.lp_points,
        }


@dataclass(frozen=True)
class HockeyPoint:
    """Exact worst-case δ'(ε') ∈ [lower, upper] at t'_lo ≤ e^{ε'} ≤ t'_hi."""

    label: float  # ε' (display)
    tp_lo: Fraction
    tp_hi: Fraction
    lower: Fraction
    upper: Fraction | None
    scenario: Scenario
    direction: str
    witness: AcceptanceWitness | None = field(compare=False)
    eps: Fraction | None = None  # ε' exactly, when it is the user's number (the target)

    @property
    def eps_text(self) -> str:
        return decimal_text(self.eps) if self.eps is not None else f"{self.label:.4g}"

    @property
    def eps_json(self) -> str:
        return exact_text(self.eps) if self.eps is not None else f"{self.label:.4g}"

    def to_json(self) -> dict[str, Any]:
        return {"eps_prime": self.eps_json, "e_eps_prime": bracket_json(self.tp_lo, self.tp_hi),
                "delta_prime": bracket_json(self.lower, self.upper),
                "pair": self.scenario.label}


def effect_delta(lower: Fraction | None, upper: Fraction | None, d: Fraction) -> str:
    """(ε, δ) base: the effect from a certified bracket of δ'(ε) against the base's δ."""
    lower = lower or Fraction(0)
    if lower > d:
        return "degrades"
    if upper is not None and upper < d:
        return "amplifies"
    if upper is not None and lower >= d * (1 - NEITHER_TOL) and upper <= d * (1 + NEITHER_TOL):
        return "neither"
    return "undetermined"


@dataclass(frozen=True)
class FullSizePoint:
    """One point of the single release solved exactly at the file's own N (issue 27): the
    ratio e^{ε'} at a base ε (pure base), or δ'(ε') at `eps_prime` for the file's base.
    `answer.bracket` None: out of reach there (`reason`). `target`: the file's own question
    (the answer's verdict is then the single-release target's)."""

    answer: FullSizeAnswer
    eps: Fraction  # the base ε
    eps_prime: Fraction | None = None  # δ' points: the ε'
    target: bool = False
    base_delta: Fraction = Fraction(0)  # the base's δ (the effect of a δ' point at ε' = ε)

    @property
    def quantity(self) -> str:
        return self.answer.quantity

    @property
    def at(self) -> Fraction:
        """ε of a ratio point, ε' of a δ' point."""
        return self.eps if self.eps_prime is None else self.eps_prime

    @property
    def label(self) -> float:
        return float(self.at)

    @property
    def eps_text(self) -> str:
        return decimal_text(self.at)

    @property
    def row_label(self) -> str:
        return f"ε = {self.eps_text}" if self.quantity == "ratio" else \
            f"δ'(ε' = {self.eps_text})"

    @property
    def solved(self) -> bool:
        return self.answer.bracket is not None

    @property
    def complete(self) -> bool:
        return self.answer.bracket is not None and self.answer.bracket.complete

    @property
    def lower(self) -> Fraction | None:
        """The certified lower end (ratio: None is +∞; δ': None is 0)."""
        b = self.answer.bracket
        return None if b is None else b.lower

    @property
    def upper(self) -> Fraction | None:
        """The certified upper end; None: +∞ or, for a lower bound only, unknown."""
        b = self.answer.bracket
        return None if b is None else b.upper

    @property
    def reason(self) -> str:
        """Why it is out of reach (the limit hit), or what the reduction is."""
        plan = self.answer.plan
        return plan.reach or plan.note or "no reduction for this design"

    @property
    def partial_reason(self) -> str:
        """Why a solved point is a lower bound only ("" when it is complete): the reduction
        covers some neighbours by a lower bound only, or the solver certified only a lower
        end for some pair at this ε."""
        if not self.solved or self.complete:
            return ""
        plan = self.answer.plan
        if all(ob.exact for ob in plan.orbits):
            return ("the ratio LP failed for some pair at this ε; its lower end is certified "
                    "through the hockey-stick LP")
        return plan.note

    @property
    def effect(self) -> str:
        """Against the base (ratio: e^ε' against e^ε; δ' at ε' = ε: δ' against δ), from
        certified brackets only; "" for δ' at other ε'."""
        if not self.solved:
            return "undetermined"
        if self.quantity == "ratio":
            return effect_of(self.lower, self.upper, *brackets_for_eps(self.eps))
        if self.base_delta > 0 and self.eps_prime == self.eps:
            return effect_delta(self.lower, self.upper, self.base_delta)
        return ""

    @property
    def precise(self) -> bool:
        """As `ExactPoint.precise`; a lower bound only is not (it says so separately)."""
        if not self.complete or self.quantity != "ratio":
            return False
        if self.lower is None or self.upper is None:
            return self.lower is None
        lo = log_bracket(self.lower).lo if self.lower > 0 else None
        hi = log_bracket(self.upper).hi
        return lo is not None and hi - lo <= max(Fraction(1, 100), self.eps / 10)

    def value_text(self) -> str:
        """The certified value for people: "ε' = 0.0073 (certified ±5e-13)", "ε' ≥ 4",
        "δ' ∈ [0, 7.1e-8]"; "not solved" when out of reach."""
        b = self.answer.bracket
        if b is None:
            return "not solved"
        if self.quantity == "ratio":
            if b.complete or b.lower is None:
                return eps_prime_text(b.lower, b.upper)
            return f"ε' ≥ {number_text(math.log(b.lower)) if b.lower > 0 else 0}"
        if b.upper is not None:
            return in_text("δ'", b.lower or 0, b.upper)
        return f"δ' ≥ {number_text(float(b.lower or 0))}"

    def how(self) -> str:
        b = self.answer.bracket
        if b is None:
            return f"out of reach: {self.reason}"
        return f"{b.points} orbit points, {self.answer.seconds:.1f} s" + (
            "" if b.complete else "; a lower bound only")

    def row(self) -> list[str]:
        """at, certified, effect, single-release target, worst pair, how."""
        b = self.answer.bracket
        return [self.row_label, self.value_text(), self.effect or "—",
                self.answer.verdict if self.target else "—",
                b.worst if b is not None else "—", self.how()]

    def to_json(self) -> dict[str, Any]:
        b = self.answer.bracket
        out: dict[str, Any] = {
            "quantity": self.quantity, "eps": exact_text(self.eps),
            "solved": b is not None, "out_of_reach": None if b is not None else self.reason,
            "complete": None if b is None else b.complete,
            "lower_bound_only": None if b is None else not b.complete,
            "scope": (None if b is None or b.complete else
                      f"a lower bound only: {self.partial_reason}"),
            "orbit_points": None if b is None else b.points,
            "seconds": round(self.answer.seconds, 3),
            "worst_pair": None if b is None else b.worst,
            "effect": self.effect or None,
            "verdict": self.answer.verdict if self.target else None,
        }
        if self.quantity == "ratio":
            t_lo, t_hi = brackets_for_eps(self.eps)
            out.update(e_eps=bracket_json(t_lo, t_hi),
                       ratio=None if b is None else bracket_json(b.lower, b.upper),
                       eps_prime=None if b is None else log_json(b.lower, b.upper))
        else:
            assert self.eps_prime is not None
            tp_lo, tp_hi = brackets_for_eps(self.eps_prime)
            out.update(eps_prime_at=exact_text(self.eps_prime),
                       e_eps_prime=bracket_json(tp_lo, tp_hi),
                       delta_prime=None if b is None else
                       bracket_json(b.lower or Fraction(0), b.upper))
        return out


@dataclass(frozen=True)
class Contradiction:
    """A catalogued theorem applied to the instance's own parameters contradicts the certified
    worst case there: a refutation of that application (issue 14 item 3)."""

    claim: str
    direction: str  # of the theorem's bound
    at: str  # where: "ε = 1" or "δ'(ε' = 0.7)"
    theorem: Bracket  # the theorem's bound (ε' or δ'), rigorous
    exact: tuple[Fraction | None, Fraction | None]  # certified bracket on the instance (ε' or δ')
    scenario: str
    quantity: str = "eps_prime"  # or "delta_prime"

    def text(self) -> str:
        q = "ε'" if self.quantity == "eps_prime" else "δ'"
        lo, hi = self.exact
        if self.direction == "upper":
            got = f"≥ {float(lo):.6g}" if lo is not None else "= ∞"
            return (f"CONTRADICTION: {self.claim} applied at {self.at} gives {q} ≤ "
                    f"{float(self.theorem.hi):.6g}, but the certified worst case "
                    f"there ({self.scenario}) has {q} {got}: this application is refuted; "
                    f"`verifydp check {self.claim}` shows what the engine found about the "
                    "theorem")
        return (f"CONTRADICTION: {self.claim} gives {q} ≥ {float(self.theorem.lo):.6g} at "
                f"{self.at}, but the certified worst case ({self.scenario}) has {q} ≤ "
                f"{float(hi):.6g}: this application is refuted")  # type: ignore[arg-type]

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim, "direction": self.direction, "at": self.at,
                "quantity": self.quantity,
                "theorem": bracket_json(self.theorem.lo, self.theorem.hi),
                "exact": bracket_json(*self.exact), "pair": self.scenario, "text": self.text()}


@dataclass(frozen=True)
class Suggestion:
    """A nearby design: its exact worst case at the base ε at full size when it is solved
    there (`full`), else on its scaled instance (`exact`, `note`), which the text then says."""

    why: str
    kind: str
    params: Any
    exact: ExactPoint
    bound: tuple[Bound, Bracket] | None
    note: str
    full: FullSizePoint | None = None
    size: int = 0  # the file's N

    @property
    def at_full_size(self) -> bool:
        return self.full is not None and self.full.solved and self.full.complete

    def text(self) -> str:
        """"why: ε' = 0.0073 at full size (N = 60000)", or on the scaled instance, saying so."""
        value = (f"{self.full.value_text()} at full size (N = {self.size})"  # type: ignore[union-attr]
                 if self.at_full_size else
                 f"{self.exact.ratio_text()} on its scaled instance ({self.note})")
        bound = (f"; {self.bound[0].claim} gives ε' ≤ {number_text(float(self.bound[1].hi), 4)}"
                 if self.bound else "")
        return f"{self.why}: {value}{bound}"

    def to_json(self) -> dict[str, Any]:
        return {
            "why": self.why, "design": {"kind": self.kind,
                                        **{k: str(v) for k, v in dict(self.params).items()}},
            "full_size": self.full.to_json() if self.full is not None else None,
            "exact": self.exact.to_json(), "instance": self.note,
            "bound": None if self.bound is None else {
                "claim": self.bound[0].claim,
                "eps_prime": bracket_json(self.bound[1].lo, self.bound[1].hi)},
        }


@dataclass(frozen=True)
class Verdicts:
    effect: str  # degrades | amplifies | neither | undetermined (on the instance, base ε)
    target_instance: str  # violated | met | undetermined (exact, scaled-down instance)
    target_full: str  # violated | met | undetermined | contradicted (theorems, full size)
    best_upper: tuple[Bound, Bracket] | None
    best_lower: tuple[Bound, Bracket] | None
    why: str = ""  # why the effect or the target is undetermined (empty when decided)

    def to_json(self) -> dict[str, Any]:
        def b(x: tuple[Bound, Bracket] | None) -> Any:
            return None if x is None else {"claim": x[0].claim,
                                           "eps_prime": bracket_json(x[1].lo, x[1].hi)}

        out = {"effect": self.effect, "target_on_instance": self.target_instance,
               "target_full_size": self.target_full, "best_upper_bound": b(self.best_upper),
               "best_lower_bound": b(self.best_lower)}
        if self.why:
            out["why_undetermined"] = self.why
        return out


def eps_prime_text(lower: Fraction | None, upper: Fraction | None) -> str:
    """ε' from a certified bracket of e^{ε'}, for people: "ε' = 0.00730459 (certified
    ±3e-9)" or "ε' ∈ [4, ∞]" (rigorous logs, issue 27)."""
    if lower is None:
        return "ε' = ∞"
    lo = log_bracket(lower).lo if lower > 0 else None
    hi = None if upper is None else log_bracket(upper).hi
    if lower == upper and lower == 1:
        return "ε' = 0 (exact)"
    return in_text("ε'", max(lo, Fraction(0)) if lo is not None else Fraction(0), hi)


def target_text(spec: AuditSpec) -> str:
    """"ε' ≤ 3, δ' ≤ 1e-5": the file's target in readable numbers."""
    t = spec.target
    return f"ε' ≤ {number_text(float(t.epsilon))}" + (
        f", δ' ≤ {number_text(float(t.delta))}" if t.delta else "")


def in_text(name: str, lo: Fraction | float | None, hi: Fraction | float | None) -> str:
    """`name = 18.193803 (certified ±5e-11)` or `name ∈ [12.3898, 12.3984]`."""
    text = bracket_text(lo, hi)
    return f"{name} {'∈' if text.startswith('[') else '='} {text}"


def full_size_json(fs: FullSizeAnswer, spec: AuditSpec,
                   ratio: FullSizeAnswer | None = None,
                   grid: tuple[FullSizePoint, ...] | list[FullSizePoint] = ()) -> dict[str, Any]:
    """The exact worst case at the file's own N, structured (issue 27): the ratio e^{ε'} and
    ε' at the base ε (pure) or δ' at the target ε', in the one bracket shape; `complete`
    False when some neighbour only gives a lower bound; `out_of_reach` names the limit hit
    when it was not solved. `grid`: every point solved at full size (the ε grid's ratios and
    the δ'(ε') points, the file's own question among them), each in the same shape
    (`FullSizePoint.to_json`)."""
    b = fs.bracket
    out: dict[str, Any] = {
        "population": spec.size, "quantity": fs.quantity, "verdict": fs.verdict,
        "eps": exact_text(spec.base.epsilon), "target": target_text(spec),
        "reduction": fs.plan.note or None, "out_of_reach": fs.plan.reach,
        "seconds": round(fs.seconds, 3),
        "ratio": None, "eps_prime": None, "delta_prime": None, "complete": None,
        "worst_pair": None, "orbit_points": None,
        "grid": [p.to_json() for p in grid],
    }
    if b is None:
        return out
    out.update(complete=b.complete, worst_pair=b.worst, orbit_points=b.points)
    if fs.quantity == "ratio":
        out["ratio"] = bracket_json(b.lower, b.upper)
        out["eps_prime"] = log_json(b.lower, b.upper)
    else:
        out["eps_prime_at"] = exact_text(spec.target.epsilon)
        out["delta_prime"] = bracket_json(b.lower or Fraction(0), b.upper)
        r = ratio.bracket if ratio is not None else None
        if r is not None and r.complete:  # e^{ε'} at the base ε as well (pure base)
            out["ratio"] = bracket_json(r.lower, r.upper)
            out["eps_prime"] = log_json(r.lower, r.upper)
    return out


def full_size_text(fs: FullSizeAnswer, spec: AuditSpec) -> str:
    """One line: the full-size answer in readable numbers, or why it is out of reach."""
    b = fs.bracket
    if b is None:
        return (f"not solved at full size (N = {spec.size}): "
                f"{fs.plan.reach or fs.plan.note or 'no reduction for this design'}")
    if fs.quantity == "ratio":
        what = eps_prime_text(b.lower, b.upper) if b.complete or b.lower is None else \
            f"ε' ≥ {number_text(math.log(b.lower)) if b.lower > 0 else 0}"
        at = f"at ε = {decimal_text(spec.base.epsilon)}"
    else:
        what = (in_text("δ'", b.lower or 0, b.upper) if b.upper is not None else
                f"δ' ≥ {number_text(float(b.lower or 0))}")
        at = (f"at ε' = {decimal_text(spec.target.epsilon)} "
              f"(base ε = {decimal_text(spec.base.epsilon)})")
    scope = "" if b.complete else f" (a lower bound only: {fs.plan.note})"
    return f"{what} {at}{scope}; single-release target {fs.verdict}; worst pair: {b.worst}"


def _frac(x: Fraction | None) -> str:
    if x is None:
        return "∞"
    if x.denominator <= 10**6 and abs(x.numerator) < 10**12:
        return str(x)
    return f"{float(x):.10g}"


def _range(run: list[ExactPoint | FullSizePoint], first: bool, last: bool) -> str:
    a, b = run[0].eps_text, run[-1].eps_text
    if len(run) == 1 and not (first and last):
        return f"at ε = {a}"
    if first and last:
        return f"at every ε of the grid ({a} to {b})" if len(run) > 1 else f"at ε = {a}"
    if first:
        return f"for ε ≤ {b}"
    if last:
        return f"for ε ≥ {a}"
    return f"for {a} ≤ ε ≤ {b}"


def grid_summary(points: Sequence[ExactPoint | FullSizePoint], said: str = "") -> str:
    """"amplifies for ε ≤ 2, degrades at ε = 4": the effect over the whole ε grid, runs of
    the same effect merged (points sorted by ε); full-size points that are lower bounds only
    say so, and why unless the reason is `said` already."""
    pts = sorted(points, key=lambda p: (p.eps if p.eps is not None else Fraction(p.label)))
    runs: list[list[ExactPoint | FullSizePoint]] = []
    for p in pts:
        if runs and runs[-1][-1].effect == p.effect:
            runs[-1].append(p)
        else:
            runs.append([p])
    text = ", ".join(f"{EFFECT_WORDS[r[0].effect]} {_range(r, i == 0, i == len(runs) - 1)}"
                     for i, r in enumerate(runs))
    partial = [p for p in pts if isinstance(p, FullSizePoint) and not p.complete]
    loose = [p.eps_text for p in pts if p.effect != "undetermined" and not p.precise
             and p not in partial]
    if loose:
        text += f" (the value of ε' is inconclusive at ε = {', '.join(loose)}: bracket too wide)"
    if partial:
        where = "" if len(partial) == len(pts) else \
            f" at ε = {', '.join(p.eps_text for p in partial)}"
        why = "; ".join(x for x in dict.fromkeys(p.partial_reason for p in partial)
                        if x != said)
        text += f" (lower bounds only{where}{': ' + why if why else ''})"
    return text


@dataclass(frozen=True)
class Report:
    """The audit's answer. The single release is answered at the file's own N first
    (`full_size`, and the ε grid and δ'(ε') points in `full_size_grid`); the scaled instance
    (`points`, `hockey`) holds the base ε's point — the replayable witness and the theorems'
    cross-check at the instance's parameters — and the ε, ε' where full size is out of reach."""

    spec: AuditSpec
    instance: Instance
    bounds: list[Bound]
    points: list[ExactPoint]  # scaled instance; points[0] is at the base ε (pure bases)
    hockey: list[HockeyPoint]  # scaled instance
    verdicts: Verdicts
    flags: list[Flag]
    suggestion: Suggestion | None
    witness: Witness | None
    witness_path: str | None
    notes: tuple[str, ...] = ()
    contradictions: tuple[Contradiction, ...] = ()
    # the named mechanism over T releases (design files with [mechanism]/[composition])
    deployment: Deployment | None = None
    # the exact worst case at the file's own N (None: not attempted)
    full_size: FullSizeAnswer | None = None
    # with an (ε', δ') target and a pure base: also e^{ε'} at the base ε, at the file's N
    full_size_ratio: FullSizeAnswer | None = None
    # every point solved at the file's N: the ratio at each ε of the grid (pure base), δ'(ε')
    full_size_grid: tuple[FullSizePoint, ...] = ()

    @property
    def main(self) -> ExactPoint | None:
        return self.points[0] if self.points else None

    @property
    def full_size_solved(self) -> bool:
        """Whether the full-size answer is a bracket (then it leads the single release)."""
        return self.full_size is not None and self.full_size.bracket is not None

    def full_size_points(self) -> list[FullSizePoint]:
        """The rows of the main table: ratios by ε, then δ'(ε') by ε' (the grid, or the file's
        own question alone when no grid was solved)."""
        pts = list(self.full_size_grid)
        if not pts and self.full_size is not None:
            s = self.spec
            if self.full_size_ratio is not None:
                pts.append(FullSizePoint(self.full_size_ratio, s.base.epsilon))
            fs = self.full_size
            pts.append(FullSizePoint(fs, s.base.epsilon,
                                     None if fs.quantity == "ratio" else s.target.epsilon,
                                     True, s.base.delta))
        return sorted(pts, key=lambda p: (p.quantity != "ratio", p.at))

    def _solved_at(self, quantity: str) -> set[Fraction]:
        return {p.at for p in self.full_size_points() if p.quantity == quantity and p.solved}

    def scaled_points(self) -> list[ExactPoint]:
        """The scaled instance's ratio points at the ε where full size is out of reach (the
        only ones the report shows as a grid), by ε."""
        done = self._solved_at("ratio")
        return sorted((p for p in self.points if p.eps not in done),
                      key=lambda p: p.eps if p.eps is not None else Fraction(p.label))

    def scaled_hockey(self) -> list[HockeyPoint]:
        """The scaled instance's δ'(ε') points at the ε' where full size is out of reach."""
        done = self._solved_at("delta")
        return [h for h in self.hockey if h.eps not in done]

    def out_of_reach(self) -> str:
        """Why full size is out of reach at the scaled points (the distinct reasons)."""
        unsolved = [p for p in self.full_size_points() if not p.solved]
        reasons = list(dict.fromkeys(p.reason for p in unsolved))
        return "; ".join(reasons) if reasons else "full size not attempted"

    def effect(self) -> str:
        """The effect at the base ε: at full size where it is solved, else on the instance."""
        for p in self.full_size_points():
            if p.solved and p.eps == self.spec.base.epsilon and p.effect and \
                    (p.quantity == "ratio" or p.eps_prime == p.eps):
                return p.effect
        return self.verdicts.effect

    def headline(self) -> str:
        """The answer to the file's question: the deployment's verdict when the file has a
        deployment (issue 27: the page used to open with the single release's "amplifies"
        and "met" above a violated deployment), else the single release's."""
        if self.deployment is not None:
            return f"{self.spec.name}: {self.deployment_verdict()}"
        return self.single_release_headline()

    def deployment_verdict(self) -> str:
        """The deployment's answer and its own target, in words."""
        dep = self.deployment
        assert dep is not None
        sym, other = ("ε", "δ") if dep.quantity == "epsilon" else ("δ", "ε")
        t = self.spec.target
        bound = t.epsilon if dep.quantity == "epsilon" else t.delta
        target = (f"deployment target {sym} ≤ {number_text(float(bound))}: {dep.target.upper()}"
                  if dep.target != "not compared" else
                  "no deployment target stated at this " + other)
        return (f"{in_text(sym, dep.result.lo, dep.result.hi)} at {other} = "
                f"{number_text(float(dep.at))} after {dep.steps} releases of {dep.mechanism} "
                f"— {target}")

    def single_release_question(self) -> str:
        """What the single-release part answers, in words (it is not the deployment's)."""
        s = self.spec
        base = ("ε = 1 (a reference: the file has no [base])" if "base" in s.defaulted
                else s.base.describe())
        return (f"one release of any mechanism that is {base}, on this design — not the "
                f"file's mechanism over its releases" if self.deployment is not None else
                f"one release of any mechanism that is {base}, on this design")

    def single_release_target(self) -> str:
        """The single-release target's verdicts, each saying which question it answers."""
        s, v = self.spec, self.verdicts
        what = f"single-release target {target_text(s)}" + (
            " (a reference: the file has no [target])" if "target" in s.defaulted else "")
        full = (f"at full size (exact, N = {s.size}): {self.full_size.verdict}"  # type: ignore[union-attr]
                if self.full_size_solved else "")
        return "; ".join(x for x in (
            f"{what}: " + (full or f"at full size by the catalogued theorems: {v.target_full}"),
            f"by the catalogued theorems: {v.target_full}" if full else "",
            f"on the scaled instance: {v.target_instance}") if x)

    def single_release_headline(self) -> str:
        """Full size first: the exact worst case at the file's N where it is solved, and the ε
        grid at full size; a scaled instance only where full size is out of reach, with the
        reason."""
        s, v = self.spec, self.verdicts
        m = self.main
        parts = []
        if self.full_size_solved:
            ratio = self.full_size_ratio
            lead = (full_size_text(ratio, s).split("; single-release")[0] + "; "
                    if ratio is not None and ratio.bracket is not None else "")
            parts.append(f"at full size (N = {s.size}): {lead}"
                         f"{full_size_text(self.full_size, s).split('; worst pair')[0]}")  # type: ignore[arg-type]
        full_grid = [p for p in self.full_size_points() if p.quantity == "ratio" and p.solved]
        if len(full_grid) > 1:
            said = self.full_size.plan.note if self.full_size_solved else ""  # type: ignore[union-attr]
            parts.append(f"over the ε grid at full size: {grid_summary(full_grid, said)}")
        elif full_grid:  # no grid (--no-grid): the effect at the base ε
            parts.append(f"{EFFECT_WORDS[full_grid[0].effect]} at ε = {full_grid[0].eps_text}")
        scaled = self.scaled_points()
        if m is not None and not self.full_size_solved and m in scaled:
            parts.append(f"exact worst case on the scaled instance at ε = {m.eps_text}: "
                         f"{m.ratio_text()} (full size not solved: {self.out_of_reach()})")
        if len(scaled) > 1 or (scaled and len(full_grid) > 0):
            where = "over the ε grid" if not full_grid else \
                "where full size is out of reach"
            parts.append(f"{where} on a scaled instance: {grid_summary(scaled)}")
        if m is None and s.base.delta > 0:
            at_eps = next((p for p in self.full_size_points() if p.quantity == "delta"
                           and p.eps_prime == s.base.epsilon and p.solved), None)
            if at_eps is not None:
                parts.append(f"(ε, δ) base, effect at ε' = ε = {decimal_text(s.base.epsilon)} "
                             f"at full size: {EFFECT_WORDS[at_eps.effect]}; see δ'(ε')")
            else:
                parts.append(f"(ε, δ) base, effect at ε = {decimal_text(s.base.epsilon)} on "
                             f"the scaled instance: {EFFECT_WORDS[v.effect]}; see δ'(ε')")
        head = f"{s.name}: " + "; ".join(parts)
        if self.contradictions:
            head += f"; {len(self.contradictions)} CONTRADICTION(S) with catalogued theorems"
        return head

    def grid_summary(self) -> str | None:
        """The effect over the ε grid: from the full-size points where they are solved, the
        scaled instance's where full size is out of reach (each says which)."""
        full = [p for p in self.full_size_points() if p.quantity == "ratio" and p.solved]
        scaled = self.scaled_points()
        parts = ([f"at full size: {grid_summary(full)}"] if full else []) + \
            ([f"on a scaled instance (full size out of reach): {grid_summary(scaled)}"]
             if scaled else [])
        return "; ".join(parts) or None

    def scaled_line(self) -> str:
        """The scaled instance in one line, when full size answers every point: what it is
        kept for, and its answer at the base ε (never a headline)."""
        m, v = self.main, self.verdicts
        target = next((h for h in self.hockey if h.eps == self.spec.target.epsilon), None)
        delta = "δ'"
        at = (f"at ε = {m.eps_text}: {m.ratio_text()}; " if m is not None else
              f"at ε' = {target.eps_text}: {in_text(delta, target.lower, target.upper)}; "
              if target is not None else "")
        return (f"scaled instance ({self.instance.note}), kept for the replayable witness and "
                f"to cross-check the theorems at its own parameters: {at}single-release "
                f"target there {v.target_instance}")

    def undetermined(self) -> list[str]:
        """Why each inconclusive scaled grid point shown (undecided, or too wide to read) is
        inconclusive; full-size points say so in their own rows."""
        return [w for w in (p.why_inconclusive() for p in self.scaled_points()) if w]

    def to_json(self) -> dict[str, Any]:
        eps = self.spec.base.epsilon
        main = self.main
        return {
            "design": self.spec.to_json(),
            "verdict": self.verdicts.to_json(),
            "headline": self.headline(),
            "single_release": {"question": self.single_release_question(),
                               "headline": self.single_release_headline(),
                               "target": self.single_release_target()},
            "full_size": (full_size_json(self.full_size, self.spec, self.full_size_ratio,
                                         self.full_size_points())
                          if self.full_size is not None else None),
            "grid_summary": self.grid_summary(),
            "inconclusive": self.undetermined(),
            "theorems": [bound_json(b, eps) for b in self.bounds],
            "contradictions": [c.to_json() for c in self.contradictions],
            "instance": {
                "note": self.instance.note,
                "pairs": [{"label": sc.label, "P": sc.pair.p.to_json(),
                           "P_prime": sc.pair.q.to_json(), "relation": sc.pair.relation.value,
                           "design": sc.design.to_json(),
                           "design_prime": sc.design_prime.to_json() if sc.design_prime
                           else None, "shape": {k: str(v) for k, v in sc.shape.items()}}
                          for sc in self.instance.scenarios],
            },
            "exact": {  # the scaled instance (full size is `full_size`)
                "scope": "scaled instance",
                "at_base_eps": main.to_json() if main else None,
                "worst_case_mechanism": (main.witness.to_json() if main and main.witness
                                         and main.lower is not None else None),
                "grid": [p.to_json() for p in self.points],
                "hockey": [h.to_json() for h in self.hockey],
            },
            "red_flags": [f.to_json() for f in self.flags],
            "suggestion": self.suggestion.to_json() if self.suggestion else None,
            "witness": self.witness_path or (self.witness.to_json() if self.witness else None),
            "notes": list(self.notes),
            "deployment": self.deployment.to_json() if self.deployment else None,
        }

    def full_size_rows(self) -> list[list[str]]:
        """The main table's rows (text and HTML): at, certified, effect, single-release
        target, worst pair, how. Out of reach everywhere: one row saying why."""
        pts = self.full_size_points()
        if pts and not any(p.solved for p in pts):
            fs = self.full_size
            assert fs is not None
            at = next((p for p in pts if p.target), pts[0])
            return [[at.row_label, "not solved", "—", fs.verdict, "—",
                     f"out of reach at every ε: {self.out_of_reach()}"]]
        return [p.row() for p in pts]

    def full_size_caption(self) -> str:
        """What the full-size rows are over (the reduction), and why a lower bound is one."""
        pts = [p for p in self.full_size_points() if p.solved]
        notes = list(dict.fromkeys(p.answer.plan.note for p in pts if p.answer.plan.note))
        partial = list(dict.fromkeys(p.partial_reason for p in pts if p.partial_reason))
        why = [x for x in partial if x not in notes]
        return "; ".join(notes) + ("; rows marked 'a lower bound only' certify the lower end "
                                   "alone" + (": " + "; ".join(why) if why else "")
                                   if partial else "")

    def scaled_rows(self) -> list[list[str]]:
        """The scaled instance's rows where full size is out of reach: at, ε' or δ', effect,
        worst pair."""
        rows = [[f"ε = {p.eps_text}",
                 p.ratio_text().removeprefix("ε' = ").removeprefix("ε' ∈ "), p.effect,
                 p.scenario.label] for p in self.scaled_points()]
        rows += [[f"δ'(ε' = {h.eps_text})", bracket_text(h.lower, h.upper), "",
                  h.scenario.label] for h in self.scaled_hockey()]
        return rows

    def render(self, console: Any = None) -> None:
        """The terminal report (rich): the file's question first — the deployment's verdict
        when it has one — then the single release under its own heading, full size first."""
        from rich.console import Console
        from rich.markup import escape

        con = console or Console(width=150)
        s = self.spec
        con.print(f"[bold]{s.name}[/]  ({s.kind}, N = {s.size}; protect {s.protect.value})")
        if s.reading:
            con.print(f"read as: {s.reading}", markup=False, highlight=False)
        dep = self.deployment
        if dep is not None:
            con.print(f"\n[bold]DEPLOYMENT VERDICT[/]: {self.deployment_verdict()}",
                      highlight=False)
            for line in dep.lines()[1:]:
                con.print(f"  {line}", markup=False, highlight=False)
            # the question names a section ("[base]"): escaped, not read as rich markup
            con.print(f"\n[bold]SINGLE RELEASE[/] — {escape(self.single_release_question())}",
                      highlight=False)
        self._render_single_release(con)

    def _render_single_release(self, con: Any) -> None:
        from rich.table import Table

        s = self.spec
        colour = {"degrades": "red", "amplifies": "green", "neither": "yellow"}
        con.print(f"[{colour.get(self.effect(), 'white')}]{self.single_release_headline()}[/]",
                  highlight=False)
        con.print(self.single_release_target(), markup=False, highlight=False)
        for c in self.contradictions:
            con.print(f"[bold red]{c.text()}[/]")
        if self.full_size is not None:
            f = Table(title=f"exact worst case over all base mechanisms at full size "
                            f"(N = {s.size})")
            for col in ("at", "certified", "effect", "single-release target", "worst pair",
                        "how"):
                f.add_column(col, overflow="fold")
            for row in self.full_size_rows():
                f.add_row(*row)
            f.caption = self.full_size_caption() or None
            con.print(f)
        t = Table(title="catalogued theorems", show_lines=False)
        for col in ("claim", "bound", "applies", "ε' at base ε", "why / why not"):
            t.add_column(col, overflow="fold")
        eps = s.base.epsilon
        for b in self.bounds:
            br = b.eps_prime(eps)
            val = "—" if br is None else number_text(float(br.hi)) if b.direction == "upper" \
                else number_text(float(br.lo))
            if b.delta_prime is not None and b.applies:
                val += f" (δ' ≤ {number_text(float(b.delta_prime.hi), 3)})"
            why = b.reason + (f" [{b.note}]" if b.note else "")
            t.add_row(b.claim, b.direction, "yes" if b.applies else "[dim]no[/]", val, why)
        con.print(t)
        scaled, scaled_h = self.scaled_points(), self.scaled_hockey()
        if scaled or scaled_h:
            e = Table(title=f"on a scaled instance, where full size is out of reach "
                            f"({self.out_of_reach()}); the instance: {self.instance.note}")
            for col in ("at", "ε' (certified, scaled instance)", "effect", "worst pair"):
                e.add_column(col, overflow="fold")
            for row in self.scaled_rows():
                e.add_row(*row)
            con.print(e)
        else:
            con.print(self.scaled_line(), markup=False, highlight=False)
        for why in self.undetermined():
            con.print(f"[yellow]inconclusive[/]: {why}")
        for f in self.flags:
            con.print(f"[red]red flag[/] [bold]{f.title}[/]: {f.why}")
        if self.suggestion:
            sg = self.suggestion
            con.print(f"[green]suggestion[/]: {sg.text()}", highlight=False)
        if self.witness_path:
            con.print(f"witness of the single-release target's violation: {self.witness_path} "
                      f"(verifydp replay {self.witness_path})")
        for n in self.notes:
            con.print(f"[yellow]note[/]: {n}")
