"""`verifydp convert`: certified conversions between DP variants (Kifer et al., paper `kifer`).

    verifydp convert --from zcdp --rho 2.63 --to approx --delta 1e-10 [--json]

Every number is a rigorous bracket (`verifydp.semantics`).  Where the paper prints a
conversion formula its value is reported ("printed"), next to a sharper valid bound where one
is known and the exact value for the Gaussian mechanism, which is itself ρ-zCDP / μ-GDP.  For
"worst case over all mechanisms of the source class" the report gives a bracket: the Gaussian
mechanism's exact value is a lower end (it belongs to the class), the best valid bound an
upper end.  Decimal inputs are read exactly ("1e-10" is the rational 10^-10).

Directions: zcdp → approx, pbdp, rdp, power, bayes; gdp → approx, pbdp, power, zcdp;
rdp → approx, pbdp, power; pure → approx, power; approx → power.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from verifydp import numparse
from verifydp.exact import barith as ba
from verifydp.exact.interval import Bracket
from verifydp.exact.numtext import bracket_text, decimal_string, fraction_text, number_text
from verifydp.semantics import gaussian, tails, testing

_DELTA_MIN = Fraction(1, 10**50)
LEVEL_MIN = Fraction(1, 10**12)  # the smallest test level a power conversion takes  # smallest δ searched (far above the 2^-192 grid)
SOURCES = ("pure", "approx", "rdp", "zcdp", "gdp")
TARGETS = ("approx", "pbdp", "rdp", "zcdp", "power", "bayes")
EXIT_OK, EXIT_USAGE = 0, 2


class ConvertError(ValueError):
    """Bad or missing parameters: one line, exit status 2."""


@dataclass(frozen=True)
class Value:
    """One reported number: what it is, how it was obtained, and its certified bracket."""

    quantity: str
    role: str  # "printed", "bound (Thm 6.3)", "sharper bound", "exact (Gaussian)", "exact",
    # "worst case"
    bracket: Bracket
    how: str  # for people: its numbers are decimals ("α = 3.85")
    at: dict[str, Fraction] = field(default_factory=dict)  # exact values `how` rounds

    def to_json(self) -> dict[str, Any]:
        # the one JSON number format of verifydp's reports (verifydp.exact.numtext); the
        # exact rationals behind `how` beside it, as "p/q" like `params`
        out = {"quantity": self.quantity, "role": self.role,
               "lo": decimal_string(self.bracket.lo, False, 12),
               "hi": decimal_string(self.bracket.hi, True, 12), "how": self.how}
        if self.at:
            out["at"] = {k: str(v) for k, v in self.at.items()}
        return out


@dataclass(frozen=True)
class Conversion:
    source: str
    target: str
    params: dict[str, str]
    values: tuple[Value, ...]
    notes: tuple[str, ...] = field(default=())

    def to_json(self) -> dict[str, Any]:
        return {"from": self.source, "to": self.target, "params": self.params,
                "values": [v.to_json() for v in self.values], "notes": list(self.notes)}


# ----------------------------------------------------------------- certified solving


def _solve(f: Callable[[Fraction], Bracket], target: Fraction, lo: Fraction, hi: Fraction,
           increasing: bool, steps: int = 70) -> Bracket:
    """Bracket of the x in [lo, hi] with f(x) = target, f monotone; ends certified by
    f(x_lo) and f(x_hi) lying strictly on the two sides of target."""
    def below(x: Fraction) -> bool | None:  # is x left of the root?
        v = f(x)
        if v.hi < target:
            return increasing
        if v.lo > target:
            return not increasing
        return None

    if below(lo) is not True or below(hi) is not False:
        raise ConvertError("no solution in the supported range")
    for _ in range(steps):
        mid = (lo + hi) / 2
        b = below(mid)
        if b is None:
            break
        lo, hi = (mid, hi) if b else (lo, mid)
    return Bracket(lo, hi)


def _need(p: dict[str, Fraction | None], *names: str) -> list[Fraction]:
    missing = [n for n in names if p.get(n) is None]
    if missing:
        raise ConvertError(f"missing --{missing[0]}")
    return [p[n] for n in names]  # type: ignore[misc]


def _one_of(p: dict[str, Fraction | None], a: str, b: str) -> str:
    if (p.get(a) is None) == (p.get(b) is None):
        raise ConvertError(f"give exactly one of --{a} and --{b}")
    return a if p.get(a) is not None else b


def _check_ranges(p: dict[str, Fraction | None]) -> None:
    for k in ("rho", "mu", "gamma"):
        if p.get(k) is not None and p[k] <= 0:  # type: ignore[operator]
            raise ConvertError(f"--{k} must be positive")
    for k in ("delta", "level"):
        if p.get(k) is not None and not 0 < p[k] < 1:  # type: ignore[operator]
            raise ConvertError(f"--{k} must lie strictly between 0 and 1")
    if p.get("level") is not None and p["level"] < LEVEL_MIN:  # type: ignore[operator]
        # the power bounds work in floats there (issue 28: 1e-100 overflowed)
        raise ConvertError(f"--level must be at least {float(LEVEL_MIN):g}")
    if p.get("epsilon") is not None and p["epsilon"] < 0:  # type: ignore[operator]
        raise ConvertError("--epsilon must be non-negative")
    if p.get("alpha") is not None and p["alpha"] <= 1:  # type: ignore[operator]
        raise ConvertError("--alpha must be greater than 1")


# ----------------------------------------------------------------- pieces


def _gauss_eps_at(delta: Fraction, mu: Bracket) -> Bracket:
    """ε with δ_Gauss(ε) = δ (δ_Gauss is decreasing in ε)."""
    return _solve(lambda e: gaussian.delta_of_eps(e, mu), delta, Fraction(0), Fraction(10**4),
                  increasing=False)


def _cks_eps(delta: Fraction, rho: Fraction) -> tuple[Bracket, Fraction]:
    """Smallest ε the CKS bound certifies at δ, at a float-chosen rational α (γ = αρ)."""
    best: tuple[float, Fraction] | None = None
    for k in range(1, 400):
        a = 1 + Fraction(k, 20)
        af = float(a)
        e = af * float(rho) + ((af - 1) * math.log(af - 1) - af * math.log(af)
                               - math.log(float(delta))) / (af - 1)
        if best is None or e < best[0]:
            best = (e, a)
    assert best is not None
    a = best[1]
    return _rdp_cks_eps(delta, a, a * rho), a


def _rdp_cks_eps(delta: Fraction, alpha: Fraction, gamma: Fraction) -> Bracket:
    """ε = γ + ((α−1)ln(α−1) − α ln α − ln δ)/(α−1): the CKS bound solved for ε."""
    am1 = alpha - 1
    num = ba.sub(ba.sub(ba.mul(am1, ba.log(am1)), ba.mul(alpha, ba.log(alpha))), ba.log(delta))
    return ba.add(gamma, ba.div(num, am1))


def _zcdp_power_sup(level: Fraction, rho: Fraction) -> Bracket:
    """Certified bracket of sup{p : (ℓ, p) meets both ρ-zCDP constraints of Thm 6.3}."""
    lo, hi = level, Fraction(1)
    for _ in range(12):  # bisect; an uncertified midpoint is nudged to either side once
        mid = (lo + hi) / 2
        for m in (mid, (3 * lo + hi) / 4, (lo + 3 * hi) / 4):
            if testing.zcdp_violation(level, m, rho) is not None:
                hi = m
                break
            if testing.zcdp_feasible(level, m, rho, max_cells=200):
                lo = m
                break
        else:
            break
    return Bracket(lo, hi)


def _rdp_power_sup(level: Fraction, alpha: Fraction, gamma: Fraction) -> Bracket:
    """Certified bracket of the largest power allowed by Thm 6.3 at one (α, γ)."""
    bound = ba.exp(ba.mul(gamma, alpha - 1))

    def worst(p: Fraction) -> Bracket:
        return ba.bmax(testing.renyi_bern(level, p, alpha), testing.renyi_bern(p, level, alpha))

    hi = Fraction(1) - Fraction(1, 10**12)
    if worst(hi).hi <= bound.lo:
        return Bracket(hi, Fraction(1))
    return _solve(lambda p: ba.sub(worst(p), bound), Fraction(0), level, hi, increasing=True)


# ----------------------------------------------------------------- conversions


def convert(source: str, target: str, p: dict[str, Fraction | None]) -> Conversion:
    """Run one conversion; raises ConvertError on unsupported directions or bad parameters."""
    _check_ranges(p)
    fn = _TABLE.get((source, target))
    if fn is None:
        ok = ", ".join(f"{s}→{t}" for s, t in _TABLE)
        raise ConvertError(f"unsupported conversion {source} → {target} (supported: {ok})")
    values, notes = fn(p)
    shown = {k: str(v) for k, v in p.items() if v is not None}
    return Conversion(source, target, shown, tuple(values), tuple(notes))


Result = tuple[list[Value], list[str]]


def _zcdp_approx(p: dict) -> Result:
    (rho,) = _need(p, "rho")
    mu = gaussian.mu_of_rho(rho)
    if _one_of(p, "delta", "epsilon") == "delta":
        d = p["delta"]
        printed = tails.ev(tails.ZCDP_EPS, rho=rho, delta=d)
        cks, a = _cks_eps(d, rho)
        gauss = _gauss_eps_at(d, mu)
        upper = printed if printed.hi < cks.hi else cks
        return [
            Value("epsilon", "printed", printed, "ρ + 2√(ρ ln(1/δ)) (inverse of the §5.3 tail)"),
            Value("epsilon", "sharper bound", cks,
                  f"Canonne–Kamath–Steinke at α = {fraction_text(a)}", {"alpha": a}),
            Value("epsilon", "exact (Gaussian)", gauss, "Gaussian mechanism, μ = √(2ρ)"),
            Value("epsilon", "worst case", Bracket(gauss.lo, upper.hi),
                  "over all ρ-zCDP mechanisms: [Gaussian exact, best valid bound]"),
        ], []
    e = p["epsilon"]
    if e <= rho:
        raise ConvertError("--epsilon must exceed --rho for the zCDP tail bound")
    printed = tails.ev(tails.ZCDP_TAIL, epsilon=e, rho=rho)
    a = tails.cks_alpha(float(e), float(rho))
    cks = tails.cks_delta(e, rho, a)
    gauss = gaussian.delta_of_eps(e, mu)
    upper = printed if printed.hi < cks.hi else cks
    return [
        Value("delta", "printed", printed, "e^{−(ε−ρ)²/(4ρ)} (§5.3)"),
        Value("delta", "sharper bound", cks, f"Canonne–Kamath–Steinke at α = {fraction_text(a)}",
              {"alpha": a}),
        Value("delta", "exact (Gaussian)", gauss, "Gaussian mechanism, μ = √(2ρ)"),
        Value("delta", "worst case", Bracket(gauss.lo, upper.hi),
              "over all ρ-zCDP mechanisms: [Gaussian exact, best valid bound]"),
    ], []


def _pbdp_gauss(p: dict, mu: Bracket) -> tuple[str, Bracket]:
    if _one_of(p, "delta", "epsilon") == "delta":
        return "epsilon", gaussian.pbdp_eps(p["delta"], mu)
    e = p["epsilon"]
    return "delta", _solve(lambda d: gaussian.pbdp_eps(d, mu), e, _DELTA_MIN,
                           Fraction(1) - Fraction(1, 10**12), increasing=False)


def _zcdp_pbdp(p: dict) -> Result:
    (rho,) = _need(p, "rho")
    q, gauss = _pbdp_gauss(p, gaussian.mu_of_rho(rho))
    if q == "epsilon":
        printed = tails.ev(tails.ZCDP_EPS, rho=rho, delta=p["delta"])
    else:
        if p["epsilon"] <= rho:
            raise ConvertError("--epsilon must exceed --rho for the zCDP tail bound")
        printed = tails.ev(tails.ZCDP_TAIL, epsilon=p["epsilon"], rho=rho)
    return [
        Value(q, "printed", printed, "§5.3: e^{−(ε−ρ)²/(4ρ)} bounds the pbdp δ"),
        Value(q, "exact (Gaussian)", gauss, "Example 5.10 pbdp curve, μ = √(2ρ)"),
        Value(q, "worst case", Bracket(min(gauss.lo, printed.lo), printed.hi),
              "over all ρ-zCDP mechanisms: between the Gaussian and the printed bound"),
    ], []


def _zcdp_rdp(p: dict) -> Result:
    rho, alpha = _need(p, "rho", "alpha")
    return [Value("gamma", "exact", Bracket.point(alpha * rho), "ρ-zCDP ⇔ (α, αρ)-RDP ∀α")], []


def _zcdp_power(p: dict) -> Result:
    rho, level = _need(p, "rho", "level")
    return [
        Value("power", "bound (Thm 6.3)", _zcdp_power_sup(level, rho),
              "sup over Thm 6.3 constraints, all α > 1 (certified both sides)"),
        Value("power", "exact (Gaussian)", gaussian.power(level, gaussian.mu_of_rho(rho)),
              "1 − f(ℓ), f = G_{√(2ρ)}"),
    ], []


def _zcdp_bayes(p: dict) -> Result:
    rho, e = _need(p, "rho", "epsilon")
    if e <= rho:
        raise ConvertError("--epsilon must exceed --rho")
    mu = gaussian.mu_of_rho(rho)
    gauss = _solve(lambda d: gaussian.pbdp_eps(d, mu), e, _DELTA_MIN,
                   Fraction(1) - Fraction(1, 10**12), increasing=False)
    return [
        Value("delta", "printed", tails.ev(tails.BAYES_KNOWN_ZCDP, epsilon=e, rho=rho),
              "Thm 7.4.1 (attacker knows the rest): e^{−(ε+ρ)²/(4ρ)}"),
        Value("delta", "printed", tails.ev(tails.BAYES_ANY_ZCDP, epsilon=e, rho=rho),
              "Thm 7.4.2 (any prior): e^{−(ε−ρ)²/(4ρ)}"),
        Value("delta", "exact (Gaussian)", gauss, "Theorem 3 with f = G_{√(2ρ)} (pbdp curve)"),
    ], []


def _gdp(p: dict, target: str) -> Result:
    (mu_v,) = _need(p, "mu")
    mu = ba.B(mu_v)
    if target == "zcdp":
        return [Value("rho", "exact", Bracket.point(mu_v * mu_v / 2), "ρ = μ²/2")], []
    if target == "power":
        (level,) = _need(p, "level")
        return [Value("power", "exact", gaussian.power(level, mu), "1 − f(ℓ), f = G_μ")], []
    if target == "pbdp":
        q, v = _pbdp_gauss(p, mu)
        return [Value(q, "exact", v, "Example 5.10 pbdp curve")], []
    if _one_of(p, "delta", "epsilon") == "epsilon":
        return [Value("delta", "exact", gaussian.delta_of_eps(p["epsilon"], mu),
                      "Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)")], []
    return [Value("epsilon", "exact", _gauss_eps_at(p["delta"], mu),
                  "inverse of the exact δ(ε) curve")], []


def _rdp(p: dict, target: str) -> Result:
    alpha, gamma = _need(p, "alpha", "gamma")
    if target == "power":
        (level,) = _need(p, "level")
        return [Value("power", "bound (Thm 6.3)", _rdp_power_sup(level, alpha, gamma),
                      "largest power meeting both Thm 6.3 constraints at this (α, γ)")], []
    given = _one_of(p, "delta", "epsilon")
    if given == "delta":
        d = p["delta"]
        tail = ba.add(gamma, ba.div(ba.log(Fraction(1) / d), alpha - 1))
        out = [Value("epsilon", "printed", tail, "§5.3 RDP tail e^{(α−1)(γ−ε)} solved for ε")]
        if target == "approx":
            out.append(Value("epsilon", "sharper bound", _rdp_cks_eps(d, alpha, gamma),
                             "Canonne–Kamath–Steinke"))
        return out, []
    e = p["epsilon"]
    out = [Value("delta", "printed", tails.ev(tails.RDP_TAIL, alpha=alpha, gamma=gamma,
                                              epsilon=e), "§5.3 RDP tail e^{(α−1)(γ−ε)}")]
    if target == "approx":
        out.append(Value("delta", "sharper bound", tails.cks_delta_rdp(e, alpha, gamma),
                         "Canonne–Kamath–Steinke"))
    return out, ([] if e > gamma else ["ε ≤ γ: the tail bound is not informative here"])


def _pure(p: dict, target: str) -> Result:
    (e,) = _need(p, "epsilon")
    if target == "approx":
        return [Value("delta", "exact", Bracket.point(0), "ε-DP is (ε, 0)-DP")], []
    (level,) = _need(p, "level")
    return [Value("power", "printed", tails.ev(testing.PURE_UPPER, epsilon=e, ell=level),
                  "Thm 6.1, Eq. (4): min(e^ε ℓ, 1 − e^{−ε}(1−ℓ))")], []


def _approx_power(p: dict) -> Result:
    e, d, level = _need(p, "epsilon", "delta", "level")
    v = tails.ev(testing.APPROX_UPPER, epsilon=e, delta=d, ell=level)
    return [Value("power", "printed", ba.bmin(v, 1),
                  "Thm 6.2: min(e^ε ℓ + δ, 1 − e^{−ε}(1 − ℓ − δ))")], []


_TABLE: dict[tuple[str, str], Callable[[dict], Result]] = {
    ("zcdp", "approx"): _zcdp_approx,
    ("zcdp", "pbdp"): _zcdp_pbdp,
    ("zcdp", "rdp"): _zcdp_rdp,
    ("zcdp", "power"): _zcdp_power,
    ("zcdp", "bayes"): _zcdp_bayes,
    **{("gdp", t): (lambda p, t=t: _gdp(p, t)) for t in ("approx", "pbdp", "power", "zcdp")},
    **{("rdp", t): (lambda p, t=t: _rdp(p, t)) for t in ("approx", "pbdp", "power")},
    **{("pure", t): (lambda p, t=t: _pure(p, t)) for t in ("approx", "power")},
    ("approx", "power"): _approx_power,
}


# ----------------------------------------------------------------- command line

_PARAMS = ("epsilon", "delta", "rho", "alpha", "gamma", "mu", "level")


MAGNITUDE = (Fraction(1, 10**100), Fraction(10**100))  # 0, or within these (issue 28)


def _exact(s: str) -> Fraction:
    """An exact rational from a decimal/fraction string ('1e-10', '2.63', '1/3'), by the one
    number parser (`verifydp.numparse`): "1e999999999" once built a billion-digit Fraction.
    Nonzero values lie within `MAGNITUDE`; each conversion checks its own domain."""
    try:
        x = numparse.number(s, "value")
    except numparse.NumberError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("value").lstrip(": =")) from None
    if x and not MAGNITUDE[0] <= abs(x) <= MAGNITUDE[1]:
        raise argparse.ArgumentTypeError(f"{s.strip()!r} is outside the magnitudes 1e-100 to "
                                         "1e100")
    return x


def register(subparsers: Any) -> None:
    """Add the `convert` subcommand to an argparse subparsers object."""
    c = subparsers.add_parser(
        "convert", help="certified conversions between DP variants (Kifer et al.)",
        description=__doc__.split("\n\n")[0] if __doc__ else None)
    c.add_argument("--from", dest="source", required=True, choices=SOURCES)
    c.add_argument("--to", dest="target", required=True, choices=TARGETS)
    for name in _PARAMS:
        c.add_argument(f"--{name}", type=_exact, default=None, metavar="X")
    c.add_argument("--json", action="store_true", help="machine-readable output")


def run(args: argparse.Namespace) -> int:
    """Execute `verifydp convert`; 0 on success, 2 (one line on stderr) on usage errors."""
    params = {k: getattr(args, k, None) for k in _PARAMS}
    try:
        conv = convert(args.source, args.target, params)
    except ConvertError as exc:
        print(f"verifydp: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, ZeroDivisionError) as exc:  # parameters outside the certified range
        print(f"verifydp: cannot certify this conversion: {exc}", file=sys.stderr)
        return EXIT_USAGE
    if args.json:
        print(json.dumps(conv.to_json(), indent=2, ensure_ascii=False))
        return EXIT_OK
    given = ", ".join(f"{k} = {number_text(float(Fraction(v)), 8)}" for k, v in conv.params.items())
    print(f"{conv.source} → {conv.target}  ({given})")
    for v in conv.values:
        # readable: "18.193803 (certified ±5e-11)"; --json keeps the outward decimals
        print(f"  {v.quantity:<8} {v.role:<17} {bracket_text(v.bracket.lo, v.bracket.hi):<34}"
              f"  {v.how}")
    for n in conv.notes:
        print(f"  note: {n}")
    return EXIT_OK
