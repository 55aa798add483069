"""Zhao & Liu (MUST), §3.3: is the per-step pair (6)–(7) a worst case ("WLOG")?

Printed (MUST §3.3, Eqns (6)–(7), "Following Koskela et al. (2020), we consider, WLOG"):

    f_X(t)  = Σ_l Pr(K = l) N(t; +l, σ²),      f_X'(t) = Σ_l Pr(K = l) N(t; −l, σ²),

K = copies of the differing record in the final sample (the K = 0 mass, including the
1 − b/n of MUST.OW, sits at N(0, σ²)).  So the differing record contributes +1 in X and −1
in X' to a sum: the clipping convention inferred is values in [−1, 1] (|x| ≤ 1, the
substitution sensitivity of one record is 2), the other records contributing 0.

Checked: within that model, for (x, x') ∈ {−1, −1/2, 0, 1/2, 1}², the pair
P_{x,x'} = Σ_l Pr(K=l) N(l·x, σ²), Q_{x,x'} = Σ_l Pr(K=l) N(l·x', σ²) has hockey-stick
divergence δ(ε) = sup_E P(E) − e^ε Q(E) (both directions) no larger than that of the printed
pair (1, −1), at ε ∈ {1/2, 1, 2}, σ ∈ {1, 2}, for MUST.OW(20, 5, 3), MUST.WW(20, 5, 3) and
WR(20, 3).  Every value is a rigorous `Bracket`:

* sign of g = P − e^ε Q.  With w = e^{t/(2σ²)} (increasing in t) and x = i/2,
  g(t) = φ_σ(t) w^{−2m} h(w) with h(w) = Σ_l p_l e^{−l²i²/(8σ²)} w^{l·i+2m}
  − e^ε Σ_l p_l e^{−l²i'²/(8σ²)} w^{l·i'+2m}, a polynomial of degree ≤ 4m with interval
  coefficients.  Its positive roots are isolated by Descartes' rule of signs on Möbius
  transforms (Vincent–Collins–Akritas bisection; every sign certified), each root is then
  refined by interval bisection.  This does not rely on monotonicity of P/Q, which fails
  for pairs of the same sign, e.g. (1, 1/2): the ratio tends to 1 at t → −∞ and dips below
  1 before it increases (for x ≥ 0 ≥ x' it is increasing: numerator increasing,
  denominator decreasing, as the paper argues for (1, −1)).
* δ = Σ over the intervals {h > 0} of (P − e^ε Q)(interval), by normal cdfs
  Φ(z) = erfc(−z/√2)/2 bracketed with `verifydp.mechanisms.profiles` (erfc at two working
  precisions, widened by their difference plus a 2^-(prec-8) relative margin, outward
  rounding), evaluated over the root brackets (monotone in each end).

Symmetries used (exact): t ↦ −t maps the pair (x, x') to (−x, −x'), and the direction
Q‖P of (x, x') is the direction P‖Q of (x', x); so the 40 (ordered pair, direction) values
reduce to δ_{P‖Q} of the 10 pairs with x > x'.  The printed pair is symmetric
(f_X'(−t) = f_X(t)), so its two directions agree.  Pairs (x, −x), |x| ≤ 1, are dominated
for every ε by a proof: the kernel t ↦ x·t + N(0, (1 − x²)σ²) maps N(±l, σ²) to
N(±l·x, σ²).

Scope: a single step.  Dominance of δ(ε) at every ε for one step gives dominance under
k-fold composition only through a dominating-pair argument (a pair whose profile dominates
for all ε dominates the trade-off curve, and composition preserves that ordering), so the
ε grid checked here supports, but does not prove, the WLOG for composition.  The model
also fixes the other records at 0 (as the paper does).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from math import comb
from typing import Any

from verifydp.claims.base import (
    Budget,
    Claim,
    ClaimResult,
    InstanceResult,
    Verdict,
    combine,
    statement,
)
from verifydp.designs.must import k_law
from verifydp.exact.interval import Bracket, iv_to_bracket
from verifydp.mechanisms.profiles import SpecialEvaluator

PAPER = "must"
CLAIM_ID = "must/sec3.3:pair"
PREC = 160
PRINTED_PAIR = (Fraction(1), Fraction(-1))
VALUES = tuple(Fraction(i, 2) for i in range(-2, 3))
EPS_GRID = (Fraction(1, 2), Fraction(1), Fraction(2))
SIGMAS = (Fraction(1), Fraction(2))
INSTANCES = (("must-ow", 20, 5, 3), ("must-ww", 20, 5, 3), ("wr", 20, None, 3))
_MAX_DEPTH = 80
_REFINE_STEPS = 200

Pair = tuple[Fraction, Fraction]


class Uncertified(ArithmeticError):
    """A sign could not be certified at the working precision."""


# ---------------------------------------------------------------- interval helpers


@dataclass
class _Ctx:
    ev: Any

    def q(self, x: Fraction | int) -> Any:
        return self.ev.from_fraction(Fraction(x))

    def sign(self, iv: Any) -> int | None:
        """+1 / −1 when certified, 0 for an exact point zero, None when undecided."""
        slo, shi = self.ev.sign_info(iv)
        if slo > 0:
            return 1
        if shi < 0:
            return -1
        if slo == 0 and shi == 0:
            return 0
        return None


def _ctx() -> _Ctx:
    return _Ctx(SpecialEvaluator(PREC))


@cache
def _law(scheme: str, n: int, b: int | None, m: int) -> tuple[tuple[int, Fraction], ...]:
    return tuple(sorted((int(k), Fraction(p)) for k, p in k_law(scheme, n, b, m) if p))


def _poly(cx: _Ctx, law: tuple[tuple[int, Fraction], ...], m: int, pair: Pair,
          sigma2: Fraction, c: Any) -> list[Any]:
    """Interval coefficients of h(w) (lowest power divided out); None = structural zero."""
    x, xp = pair
    i, ip = int(2 * x), int(2 * xp)
    assert Fraction(i, 2) == x and Fraction(ip, 2) == xp, "values must be multiples of 1/2"
    coef: list[Any] = [None] * (4 * m + 1)

    def add(deg: int, val: Any) -> None:
        coef[deg] = val if coef[deg] is None else coef[deg] + val

    for l, p in law:  # noqa: E741 (l as in the paper)
        add(l * i + 2 * m, cx.q(p) * cx.ev.exp(cx.q(Fraction(-(l * l) * i * i, 8) / sigma2)))
        add(l * ip + 2 * m,
            -(c * cx.q(p) * cx.ev.exp(cx.q(Fraction(-(l * l) * ip * ip, 8) / sigma2))))
    while coef and coef[-1] is None:
        coef.pop()
    lo = next(k for k, v in enumerate(coef) if v is not None)
    return coef[lo:]


def _horner(cx: _Ctx, coef: list[Any], w: Any) -> Any:
    acc = cx.q(0)
    for v in reversed(coef):
        acc = acc * w
        if v is not None:
            acc = acc + v
    return acc


def _poly_pow(base: list[Fraction], k: int) -> list[Fraction]:
    out = [Fraction(1)]
    for _ in range(k):
        nxt = [Fraction(0)] * (len(out) + len(base) - 1)
        for a, u in enumerate(out):
            for b_, v in enumerate(base):
                nxt[a + b_] += u * v
        out = nxt
    return out


def _transform(cx: _Ctx, coef: list[Any], a: Fraction, b: Fraction | None) -> list[Any]:
    """Coefficients whose positive roots v correspond to roots of h in (a, b).

    (1+v)^d h((a + b v)/(1+v)) for finite b; h(a + v) for b = ∞.
    """
    d = len(coef) - 1
    out: list[Any] = [None] * (d + 1)
    for k, hk in enumerate(coef):
        if hk is None:
            continue
        if b is None:
            row = [Fraction(comb(k, j)) * a ** (k - j) for j in range(k + 1)]
        else:
            p1 = _poly_pow([a, b], k)
            p2 = [Fraction(comb(d - k, j)) for j in range(d - k + 1)]
            row = [Fraction(0)] * (d + 1)
            for u, cu in enumerate(p1):
                for v, cv in enumerate(p2):
                    row[u + v] += cu * cv
        for j, r in enumerate(row):
            if r:
                term = hk * cx.q(r)
                out[j] = term if out[j] is None else out[j] + term
    return out


def _descartes(cx: _Ctx, coef: list[Any]) -> int | None:
    signs = []
    for v in coef:
        if v is None:
            continue
        s = cx.sign(v)
        if s is None:
            return None
        if s:
            signs.append(s)
    return sum(1 for u, v in zip(signs, signs[1:], strict=False) if u != v)


def _certified_sign(cx: _Ctx, coef: list[Any], w: Fraction) -> int:
    s = cx.sign(_horner(cx, coef, cx.q(w)))
    if not s:
        raise Uncertified(f"sign of h at w = {w} not certified")
    return s


def _split_point(cx: _Ctx, coef: list[Any], a: Fraction, b: Fraction | None) -> Fraction:
    mid = (a + b) / 2 if b is not None else (2 * a if a > 0 else Fraction(1))
    for k in range(1, 20):
        if cx.sign(_horner(cx, coef, cx.q(mid))):
            return mid
        mid = mid + (b - a) / (7 * 2**k) if b is not None else mid * (1 + Fraction(1, 7 * k))
    raise Uncertified("no certified split point")


def _isolate(cx: _Ctx, coef: list[Any]) -> list[tuple[Fraction, Fraction | None]]:
    """Intervals (a, b) of w > 0 each holding exactly one (simple) root of h; b None = ∞."""
    out: list[tuple[Fraction, Fraction | None]] = []
    stack: list[tuple[Fraction, Fraction | None, int]] = [(Fraction(0), None, 0)]
    while stack:
        a, b, depth = stack.pop()
        count = _descartes(cx, _transform(cx, coef, a, b))
        if count == 0:
            continue
        if count == 1:
            out.append((a, b))
            continue
        if depth > _MAX_DEPTH:
            raise Uncertified("root isolation did not converge")
        s = _split_point(cx, coef, a, b)
        stack.append((a, s, depth + 1))
        stack.append((s, b, depth + 1))
    return sorted(out, key=lambda r: r[0])


def _refine(cx: _Ctx, coef: list[Any], a: Fraction, b: Fraction | None,
            s_left: int) -> tuple[Any, Any]:
    """A tight bracket (lo, hi) in w of the unique simple root in (a, b), as mpf ends.

    ``s_left`` is the sign of h just right of a; h has the opposite sign just left of b.
    """
    if b is None:
        b = max(2 * a, Fraction(1))
        while cx.sign(_horner(cx, coef, cx.q(b))) != -s_left:
            a, b = b, 2 * b
    lo_f, hi_f = a, b
    for _ in range(_REFINE_STEPS):
        mid = (lo_f + hi_f) / 2 if lo_f > 0 else hi_f / 256
        s = cx.sign(_horner(cx, coef, cx.q(mid)))
        if not s:
            break  # sign undecided at this precision: the bracket is as tight as it gets
        if s == s_left:
            lo_f = mid
        else:
            hi_f = mid
        if lo_f > 0 and hi_f - lo_f <= hi_f / 2**110:
            break
    if lo_f <= 0:
        raise Uncertified("root bracket reaches w = 0")
    return cx.q(lo_f)._mpi_[0], cx.q(hi_f)._mpi_[1]


# ---------------------------------------------------------------- hockey-stick bracket


def hockey_stick(scheme: str, n: int, b: int | None, m: int, sigma: Fraction, eps: Fraction,
                 pair: Pair) -> Bracket:
    """Rigorous bracket of sup_E P_{x,x'}(E) − e^ε Q_{x,x'}(E) (direction P‖Q)."""
    x, xp = pair
    if x == xp:
        return Bracket.point(0)
    cx = _ctx()
    ev = cx.ev
    law = _law(scheme, n, b, m)
    sigma2 = sigma * sigma
    c = ev.exp(cx.q(eps))
    coef = _poly(cx, law, m, pair, sigma2, c)
    s0 = cx.sign(coef[0])
    if not s0:
        raise Uncertified("sign of h at w → 0 not certified")
    roots = []
    for a, bb in _isolate(cx, coef):
        s_left = s0 if a == 0 else _certified_sign(cx, coef, a)
        roots.append(_refine(cx, coef, a, bb, s_left))
    # t = 2σ² log w, as intervals
    two_s2 = cx.q(2 * sigma2)
    ts = [two_s2 * ev.log(ev.ctx.make_mpf((lo, hi))) for lo, hi in roots]
    scale = ev.sqrt(cx.q(2 * sigma2))  # σ√2

    def sf(mean: Fraction, t: Any) -> Any:
        """Pr(N(mean, σ²) > t) = erfc((t − mean)/(σ√2))/2."""
        return ev.erfc((t - cx.q(mean)) / scale) / 2

    def mass(mu: Fraction, lo_t: Any | None, hi_t: Any | None) -> Any:
        """Mixture mass of (lo_t, hi_t) for means l·mu (None = infinite end)."""
        tot = cx.q(0)
        for l, p in law:  # noqa: E741 (l as in the paper)
            up = cx.q(1) if lo_t is None else sf(l * mu, lo_t)
            dn = cx.q(0) if hi_t is None else sf(l * mu, hi_t)
            tot = tot + cx.q(p) * (up - dn)
        return tot

    ends: list[Any | None] = [None, *ts, None]
    total = cx.q(0)
    sign = s0
    for j in range(len(ends) - 1):
        if sign > 0:
            total = total + mass(x, ends[j], ends[j + 1]) - c * mass(xp, ends[j], ends[j + 1])
        sign = -sign
    lo, hi = iv_to_bracket(total).lo, iv_to_bracket(total).hi
    return Bracket(max(lo, Fraction(0)), max(hi, Fraction(0)))


def _canon(x: Fraction, xp: Fraction) -> Pair:
    """The pair with first > second whose P‖Q equals that of (x, x') (mirror t ↦ −t)."""
    return (x, xp) if x > xp else (-x, -xp)


def _reps() -> list[Pair]:
    return [(x, xp) for x in VALUES for xp in VALUES if x > xp]


def _fmt(br: Bracket) -> str:
    return f"[{float(br.lo):.9g}, {float(br.hi):.9g}]"


def _pairstr(p: Pair) -> str:
    return f"({p[0]}, {p[1]})"


def _instances(budget: Budget, worst: Pair) -> Iterator[InstanceResult]:
    wx, wxp = worst
    own = {_canon(wx, wxp), _canon(wxp, wx)} if wx != wxp else set()
    for scheme, n, b, m in INSTANCES:
        for sigma in SIGMAS:
            for eps in EPS_GRID:
                if budget.spent():
                    return
                params = {"scheme": scheme, "n": n, "b": b, "m": m, "sigma": str(sigma),
                          "epsilon": str(eps), "claimed_worst": _pairstr(worst)}
                try:
                    vals = {p: hockey_stick(scheme, n, b, m, sigma, eps, p) for p in _reps()}
                except (Uncertified, ValueError) as exc:
                    yield InstanceResult(params, Verdict.INCONCLUSIVE, "", "", note=str(exc))
                    continue
                if own:
                    claimed_lo = max(vals[p].lo for p in own)
                    claimed = Bracket(claimed_lo, max(vals[p].hi for p in own))
                else:
                    claimed = Bracket.point(0)
                others = {p: v for p, v in vals.items() if p not in own}
                best_p = max(others, key=lambda p: others[p].lo)
                best = others[best_p]
                ctext = f"δ{_pairstr(worst)}(ε) = {_fmt(claimed)} (max over both directions)"
                atext = (f"largest other pair {_pairstr(best_p)} (or its mirror/reverse): "
                         f"δ = {_fmt(best)}")
                if best.lo > claimed.hi:
                    yield InstanceResult(params, Verdict.REFUTED, ctext, atext,
                                         note=f"pair {_pairstr(best_p)} exceeds it")
                elif all(v.hi < claimed.lo for v in others.values()):
                    yield InstanceResult(params, Verdict.HOLDS, ctext, atext)
                else:
                    yield InstanceResult(params, Verdict.INCONCLUSIVE, ctext, atext,
                                         note="brackets overlap")


def check_pair(budget: Budget, worst: Pair = PRINTED_PAIR) -> ClaimResult:
    results: list[InstanceResult] = []
    for r in _instances(budget, worst):
        results.append(r)
        if budget.fail_fast and r.verdict is Verdict.REFUTED:
            break
    text = (
        f"the per-step pair {_pairstr(worst)} (Eqns (6)–(7)) has the largest hockey-stick "
        "divergence, both directions, among all pairs (x, x') ∈ {−1, −1/2, 0, 1/2, 1}² of the "
        "clipped-sum Gaussian mechanism (values in [−1, 1]) under MUST.OW/MUST.WW(20, 5, 3) "
        "and WR(20, 3), σ ∈ {1, 2}, ε ∈ {1/2, 1, 2}; single step (composition follows only "
        "via a dominating-pair argument)"
    )
    st = statement(text, results)
    return ClaimResult(CLAIM_ID, combine([st]), (st,))


PRINTED = (
    r"Following Koskela et al. (2020), we consider, WLOG, "
    r"f_X(t)=\frac{1}{\sqrt{2\pi}\sigma}\sum_{l=0}^{m}\frac{b}{n}\binom{m}{l}(\frac{1}{b})^l"
    r"(1-\frac{1}{b})^{m-l}e^{-\frac{(t-l)^2}{2\sigma^2}}+\frac{1}{\sqrt{2\pi}\sigma}"
    r"(1-\frac{b}{n})e^{-\frac{t^2}{2\sigma^2}},\ "
    r"f_{X'}(t)=\frac{1}{\sqrt{2\pi}\sigma}\sum_{l=0}^{m}\frac{b}{n}\binom{m}{l}(\frac{1}{b})^l"
    r"(1-\frac{1}{b})^{m-l}e^{-\frac{(t+l)^2}{2\sigma^2}}+\frac{1}{\sqrt{2\pi}\sigma}"
    r"(1-\frac{b}{n})e^{-\frac{t^2}{2\sigma^2}}"
)

CLAIMS = [
    Claim(CLAIM_ID, PAPER, "§3.3, Eqns (6)–(7)",
          "the per-step pair used for composition is a worst case (WLOG)", PRINTED, check_pair),
]
