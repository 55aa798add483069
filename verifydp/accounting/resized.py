"""Sample sizes that follow the data: proportional allocation (m = round(r·n) per group),
stratified proportional allocation and data-independent random sizes (issue 16).

The two runs' sizes are coupled through one uniform variable; given one run's sample the
other's is that sample moved by a displacement or a size jump, whose shifts aligned at their
largest norms dominate (the alignment lemma), revealed over the given run's size and
enveloped over the groups (proofs/deployment_pairs.md#resized). A replacement that moves the
record between strata reveals each side's jump and uses moved pairs
(proofs/deployment_pairs.md#moved).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verifydp.accounting.composition import AnyPair, Pair
from verifydp.accounting.forms import (
    Dominating,
    Realised,
    bernoulli,
    law_pair,
    moved_pair,
    revealed,
)
from verifydp.designs.allocation import round_allocation

__all__ = ["SizeLaw", "coupled", "resized_pairs", "size_law"]


SizeLaw = tuple[tuple[int, Fraction], ...]  # (m, Pr) of a sample size, increasing in m


def size_law(kind: str, params: Mapping[str, Any], n: int) -> SizeLaw | None:
    """The law of the sample size drawn from a group of n records (None: the design is not
    defined there, a size law reaching past n)."""
    if kind == "random-size":
        law = tuple(sorted((int(m), Fraction(w)) for m, w in params["size_law"].items() if w))
        return law if law[-1][0] <= n else None
    return tuple(sorted(round_allocation(Fraction(params["r"]) * n, params["rounding"])))


def coupled(small: SizeLaw, large: SizeLaw) -> list[tuple[int, int, Fraction]]:
    """The quantile coupling (m, m′, weight) of two sample-size laws: one uniform variable
    drives both draws, a label common to both runs and independent of the data."""
    out: list[tuple[int, int, Fraction]] = []
    i = j = 0
    left_a, left_b = small[0][1], large[0][1]
    while True:
        w = min(left_a, left_b)
        if w > 0:
            out.append((small[i][0], large[j][0], w))
        left_a -= w
        left_b -= w
        if left_a == 0:
            i += 1
            if i == len(small):
                return out
            left_a = small[i][1]
        if left_b == 0:
            j += 1
            left_b = large[j][1]


def _rising(small: SizeLaw, large: SizeLaw, where: str) -> list[tuple[int, int, Fraction]]:
    """`coupled`, refusing a size that falls when the record joins (no pair is derived)."""
    pairs = coupled(small, large)
    for m, m2, _ in pairs:
        if m2 < m:
            raise ValueError(f"{where}: the allocation falls when a record joins "
                             f"({m} → {m2}); no dominating pair is derived for that")
    return pairs


Shifts = tuple[tuple[Fraction, Fraction], ...]  # (shift ≥ 0, Pr), increasing: a step's law


def _st_max(laws: list[Shifts]) -> Shifts:
    """The smallest shift law above each of `laws` in the usual stochastic order (its
    survival function is their pointwise maximum): the pair Σ Pr(s)K(s) against K(0) grows
    in that order (proofs/deployment_pairs.md#resized)."""
    points = sorted({t for law in laws for t, _ in law})
    out, prev = [], Fraction(0)
    for t in reversed(points):
        surv = max(sum((w for x, w in law if x >= t), Fraction(0)) for law in laws)
        if surv > prev:
            out.append((t, surv - prev))
            prev = surv
    return tuple(sorted(out))


@dataclass(frozen=True)
class _Labelled:
    """One way the record joins or changes a group, as a law over the size label (revealed:
    a common, data-independent label) of the step's shift law given the label; `incl` =
    Pr(the record is drawn), `fixed`: every size certain (the pair is then attained)."""

    branches: tuple[tuple[Fraction, Shifts], ...]
    incl: Fraction
    where: str
    fixed: bool
    realised: tuple[tuple[Fraction, Fraction], ...] = ()


def _grown(small: SizeLaw, large: SizeLaw, n: int, a: Fraction, d: Fraction,
           where: str) -> _Labelled:
    """A group grows n → n + 1 (the larger run holds the record), sizes coupled m → m′
    (`coupled`). Given one run's sample, the other's is that sample moved: with m′ = m the
    record displaces a draw (probability m/(n + 1), shift ≤ d); with m′ = m + j, j ≥ 1, the
    larger run holds j more draws, the record among them or not (shift ≤ j·a). The shifts
    aligned at their largest norms, revealed over the given run's size, dominate
    (proofs/deployment_pairs.md#resized). The given run is the one whose size has fewer
    values (a certain size reveals nothing): the pair's two orders are both composed."""
    by_large = len(large) < len(small)
    pairs = _rising(small, large, where)
    per: dict[int, dict[Fraction, Fraction]] = {}
    incl = Fraction(0)
    for m, m2, w in pairs:
        incl += w * Fraction(m2, n + 1)
        law = per.setdefault(m2 if by_large else m, {})
        if m2 > m:
            law[(m2 - m) * a] = law.get((m2 - m) * a, Fraction(0)) + w
        else:
            rate = Fraction(m, n + 1)
            for t, x in ((Fraction(0), 1 - rate), (d, rate)):
                if x:
                    law[t] = law.get(t, Fraction(0)) + w * x
    branches = []
    for _, law in sorted(per.items()):
        tot = sum(law.values(), Fraction(0))
        branches.append((tot, tuple(sorted((t, x / tot) for t, x in law.items()))))
    real: dict[Fraction, Fraction] = {}
    if len(small) == 1:
        # others at −C, the record at +C, D's size m certain: D's sum is −mC; D′'s moves by
        # d when the record displaces a draw, by (2 − j)·a with j more draws and the record
        # among them, by −j·a without it — exactly, the others being identical
        for m, m2, w in pairs:
            j, inside = m2 - m, Fraction(m2, n + 1)
            for t, x in (((d, inside), (Fraction(0), 1 - inside)) if j == 0 else
                         (((2 - j) * a, inside), (-j * a, 1 - inside))):
                if w * x:
                    real[t] = real.get(t, Fraction(0)) + w * x
    return _Labelled(tuple(branches), incl, where, len(small) == len(large) == 1,
                     tuple(sorted((x, t) for t, x in real.items())))


def _in_place(law: SizeLaw, n: int, d: Fraction, where: str) -> _Labelled:
    """The record's value changes, its group keeps n records: the size label m is common and
    the record displaces a draw with probability m/n (shift ≤ d)."""
    branches = tuple((w, tuple((t, x) for t, x in ((Fraction(0), 1 - Fraction(m, n)),
                                                   (d, Fraction(m, n))) if x))
                     for m, w in law)
    incl = sum((w * Fraction(m, n) for m, w in law), Fraction(0))
    return _Labelled(branches, incl, where, len(law) == 1)


_MAX_BRANCHES = 4  # branches of an enveloped revealed mixture (each is composed)


def _envelope(sides: list[_Labelled]) -> tuple[tuple[Fraction, Shifts], ...]:
    """One revealed mixture above every side: each side's label is coupled to one uniform
    U (its branches in increasing mean shift); on each piece of [0, 1) where every side's
    branch is fixed, the stochastic maximum of those branches; adjacent pieces merged (their
    maximum) down to `_MAX_BRANCHES`. Any coupling and any merge keep it dominating."""
    def mean(law: Shifts) -> Fraction:
        return sum((t * w for t, w in law), Fraction(0))

    ordered = [sorted(sd.branches, key=lambda b: (mean(b[1]), b[1])) for sd in sides]
    cuts = {Fraction(0), Fraction(1)}
    for br in ordered:
        acc = Fraction(0)
        for w, _ in br:
            acc += w
            cuts.add(acc)
    points = sorted(cuts)
    pieces: list[tuple[Fraction, Shifts]] = []
    for lo, hi in zip(points, points[1:], strict=False):
        laws = []
        for br in ordered:
            acc = Fraction(0)
            for w, law in br:
                acc += w
                if acc > lo:
                    laws.append(law)
                    break
        law = _st_max(laws)
        if pieces and pieces[-1][1] == law:
            pieces[-1] = (pieces[-1][0] + hi - lo, law)
        else:
            pieces.append((hi - lo, law))
    while len(pieces) > _MAX_BRANCHES:
        i = min(range(len(pieces) - 1), key=lambda k: pieces[k][0] + pieces[k + 1][0])
        pieces[i:i + 2] = [(pieces[i][0] + pieces[i + 1][0],
                            _st_max([pieces[i][1], pieces[i + 1][1]]))]
    return tuple(pieces)


def _shift_pair(branches: tuple[tuple[Fraction, Shifts], ...], noise: Fraction, kernel: str,
                name: str) -> AnyPair:
    """Σ_s Pr(s)K(s) against K(0) per branch (shifts ≥ 0: the loss is non-decreasing,
    `law_pair`), revealed over the branches when there are several."""
    pairs = [(w, Pair(tuple((x, t) for t, x in law), ((Fraction(1), Fraction(0)),), noise,
                      kernel, name)) for w, law in branches]
    return revealed(pairs, name)


def _grouped(sides: list[_Labelled]) -> list[list[_Labelled]]:
    """Sides with the same shift supports per branch are enveloped together; others (a
    size that jumps for sure against one that never does) stay separate candidates, whose
    envelope would mix them into a pair worse than both."""
    groups: dict[tuple[tuple[Fraction, ...], ...], list[_Labelled]] = {}
    for sd in sides:
        key = tuple(sorted({tuple(t for t, _ in law) for _, law in sd.branches}))
        groups.setdefault(key, []).append(sd)
    return [groups[k] for k in sorted(groups)]


def resized_pairs(kind: str, params: Mapping[str, Any], size: int, a: Fraction, d: Fraction,
                  noise: Fraction, kernel: str, add_remove: bool, count: bool,
                  strata_sizes: Mapping[str, int] | None) -> tuple[Dominating, ...]:
    """Sample sizes that follow the group's size (proportional allocation, each stratum's
    m_h = round(r·N_h)) or are drawn from a law (`random-size`): the two runs' sizes are
    coupled through one uniform variable, and the step given one run's sample is a mixture
    of shifts of bounded norm against that run's output — dominated by the shifts aligned at
    their bounds, revealed over that run's size (`_grown`, `_in_place`), enveloped over the
    groups
    (proofs/deployment_pairs.md#resized). Lower ends: a side whose sizes are certain is
    attained (others at −C for a displacement, +C for a jump); otherwise others at 0 and the
    record at +C (a count: 1) realise the record's inclusion probability alone."""
    groups = dict(strata_sizes) if kind == "stratified-proportional" else {"": size}
    label = "stratum " if kind == "stratified-proportional" else ""

    def law(n: int) -> SizeLaw | None:
        return size_law(kind, params, n) if n >= 0 else None

    def name(h: str) -> str:
        return f"{label}{h}" if h else "the population"

    sides: list[_Labelled] = []
    if add_remove:
        for h, n in groups.items():
            for k in (n - 1, n):
                lo, hi = law(k), law(k + 1)
                if lo is not None and hi is not None:
                    sides.append(_grown(lo, hi, k, a, d, f"{name(h)} ({k} → {k + 1} records)"))
    else:
        for h, n in groups.items():
            sl = law(n)
            assert sl is not None
            sides.append(_in_place(sl, n, d, name(h)))
    out: list[Dominating] = []
    for grp in _grouped(sides):
        env = _envelope(grp)
        worst = max(grp, key=lambda sd: sd.incl)
        attained = next((sd for sd in grp if sd.fixed and sd.branches == env), None)
        lower = None
        if attained is None:  # others at 0, the record at +C (±C in place; a count: 0 → 1)
            if add_remove or count:
                lower = law_pair(bernoulli(worst.incl), d if count else a, noise, kernel,
                                 "added", f"{kind} realised")
            else:
                lower = law_pair(bernoulli(worst.incl), d / 2, noise, kernel, "swapped",
                                 f"{kind} realised")
        real = None
        if lower is not None and not count and kernel != "dgauss":
            conc = [sd for sd in grp if sd.realised]
            if conc:
                best = max(conc, key=lambda sd: sd.incl)
                real = Realised(best.realised, noise, kernel, best.where)
        shown = "; ".join(f"w.p. {w}: " + ", ".join(f"shift {t} w.p. {x}" for t, x in law)
                          for w, law in env)
        what = "a record joins" if add_remove else "the record's value changes in"
        out.append(Dominating(
            _shift_pair(env, noise, kernel, f"{kind} resized"), "resized",
            bernoulli(worst.incl), Fraction(0),
            f"{kind}: {what} a group (worst: {(attained or worst).where}); sizes coupled, the "
            f"shifts aligned at their bounds, revealed over the size: {shown}", lower=lower,
            realised=real))
    if not add_remove and kind == "stratified-proportional" and len(groups) > 1:
        out.extend(_moves_between_strata(kind, groups, law, a, d, noise, kernel, count))
    return tuple(out)


@dataclass(frozen=True)
class _Side:
    """A stratum gaining the record for a move (`_moves_between_strata`): sizes coupled m → m′;
    a jump (m′ > m, probability `jump`, largest `j`) moves the sum by ≤ j·a, otherwise the
    record displaces a draw with probability ≤ `rate`; `incl` = Pr(the record is drawn)."""

    jump: Fraction
    j: int
    rate: Fraction
    incl: Fraction
    where: str


def _side(small: SizeLaw, large: SizeLaw, n: int, where: str) -> _Side:
    jump, top, rate, incl = Fraction(0), 0, Fraction(0), Fraction(0)
    for m, m2, w in _rising(small, large, where):
        incl += w * Fraction(m2, n + 1)
        if m2 > m:
            jump, top = jump + w, max(top, m2 - m)
        else:
            rate = max(rate, Fraction(m, n + 1))
    return _Side(jump, top, rate, incl, where)


def _envelopes(sides: list[_Side]) -> list[_Side]:
    """Sides grouped by their jump probability, each group's largest j and rate: a side is
    dominated branch by branch by its group's envelope (the moved pair grows with the rate
    and the shift, proofs/deployment_pairs.md#moved)."""
    groups: dict[Fraction, list[_Side]] = {}
    for sd in sides:
        groups.setdefault(sd.jump, []).append(sd)
    out = []
    for jump, g in sorted(groups.items()):
        best = max(g, key=lambda x: (x.j, x.rate) if jump else (x.rate, x.j))
        out.append(_Side(jump, max(x.j for x in g), max(x.rate for x in g),
                         max(x.incl for x in g), best.where))
    return out


def _side_text(sd: _Side, a: Fraction, d: Fraction) -> str:
    parts = []
    if sd.jump > 0:
        parts.append(f"the coupled sample size grows by up to {sd.j} w.p. {sd.jump} (the sum "
                     f"moves by ≤ {sd.j * a})")
    if sd.jump < 1:
        parts.append(f"the size stays and the record displaces a draw w.p. ≤ {sd.rate} "
                     f"(shift {d})" if sd.rate else "the size stays at 0 (nothing drawn)")
    return ", else ".join(parts)


def _side_branches(sd: _Side, a: Fraction, d: Fraction
                   ) -> list[tuple[Fraction, Fraction, Fraction]]:
    """(weight, rate, shift) of a side's branches: the jump, then the displacement."""
    out = []
    if sd.jump > 0:
        out.append((sd.jump, Fraction(1), sd.j * a))
    if sd.jump < 1:
        out.append((1 - sd.jump, sd.rate, d if sd.rate > 0 else Fraction(0)))
    return out


def _moves_between_strata(kind: str, groups: Mapping[str, int], law: Any, a: Fraction,
                          d: Fraction, noise: Fraction, kernel: str, count: bool
                          ) -> list[Dominating]:
    """A replacement that moves the record from stratum h to g: h shrinks (the record leaves
    D's h-sample: a side grown from N_h − 1 under D) and g grows under D'; the strata are
    sampled independently, so the labels are too and each branch pair is a moved pair
    (proofs/deployment_pairs.md#moved) with the sides' shifts."""
    def side(h: str, n: int) -> _Side | None:
        lo, hi = law(n), law(n + 1)
        if lo is None or hi is None:
            return None
        return _side(lo, hi, n, f"stratum {h}")

    leave = [sd for h, n in groups.items() if n >= 1 and (sd := side(h, n - 1))]
    join = [sd for h, n in groups.items() if (sd := side(h, n))]
    out = []
    for u in _envelopes(leave):
        for v in _envelopes(join):
            branches = [(wu * wv, moved_pair(ru, rv, su, noise, kernel, f"{kind} moved", sv))
                        for wu, ru, su in _side_branches(u, a, d)
                        for wv, rv, sv in _side_branches(v, a, d)]
            # realised: others at 0, the record at +C in h (D) and −C in g (D′); a count: 1
            # in h, not counted in g
            lower = (law_pair(bernoulli(u.incl), d, noise, kernel, "added", f"{kind} realised")
                     if count else moved_pair(u.incl, v.incl, d / 2, noise, kernel,
                                              f"{kind} realised"))
            out.append(Dominating(
                revealed(branches, f"{kind} moved"), "moved",
                bernoulli(max(u.incl, v.incl)), Fraction(0),
                f"a replacement moves the record between strata; leaving one (worst: "
                f"{u.where}): {_side_text(u, a, d)}; joining another (worst: {v.where}): "
                f"{_side_text(v, a, d)}", lower=lower))
    return out
