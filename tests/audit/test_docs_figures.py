"""The deployment figures that docs/design-files.md's example table prints are what
`verifydp audit` computes today, at full size.

Found stale on 2026-11-27: the table said ε ∈ [12.390, 12.399] for the fixed-size DP-SGD
example after the accountant's refinement had come to stop at [12.366, 12.418] (still within
`rtol`), and four other rows likewise. Each row's first "ε ∈ [a, b]" must agree with the
example's certified bracket to one unit of the last digit printed (the table rounds either
to nearest or outward). Full size means about 30 s of deployment parts in all, hence `slow`
(`.ci/run` runs it after the suite).
"""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path

import pytest

from verifydp.audit.deployment import audit_deployment
from verifydp.audit.spec import load_design

ROOT = Path(__file__).resolve().parents[2]
ROW = re.compile(r"^\| `(deploy_\w+\.toml)` \|.*?ε ∈ \[([\d.]+), ([\d.]+)\]")


def _rows() -> list[tuple[str, Decimal, Decimal]]:
    text = (ROOT / "docs" / "design-files.md").read_text(encoding="utf-8")
    return [(m.group(1), Decimal(m.group(2)), Decimal(m.group(3)))
            for line in text.splitlines() if (m := ROW.match(line))]


def test_the_table_lists_every_example_deployment() -> None:
    listed = {name for name, _, _ in _rows()}
    shipped = {p.name for p in (ROOT / "examples").glob("deploy_*.toml")}
    assert listed == shipped


def _agrees(printed: Decimal, value: float) -> bool:
    unit = Decimal(1).scaleb(printed.as_tuple().exponent)
    return abs(Decimal(value) - printed) <= unit


@pytest.mark.slow
@pytest.mark.parametrize(("name", "lo", "hi"), _rows(), ids=lambda v: str(v))
def test_the_tables_bracket_is_the_audits(name: str, lo: Decimal, hi: Decimal) -> None:
    res = audit_deployment(load_design(ROOT / "examples" / name)).result
    got = (float(res.lo), float(res.hi))
    assert _agrees(lo, got[0]) and _agrees(hi, got[1]), (name, str(lo), str(hi), got)


def test_agreement_is_one_unit_of_the_last_digit() -> None:
    assert _agrees(Decimal("12.390"), 12.3905) and _agrees(Decimal("12.390"), 12.3909)
    assert not _agrees(Decimal("12.390"), 12.3662)  # the stale row this file was written for
    assert not _agrees(Decimal("0.3320"), 0.332886)
