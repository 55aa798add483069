"""Every claim's verdict against a committed snapshot (`tests/cli/verdicts.json`).

A refactoring must not change a verdict; a change of mathematics that does must say so by
regenerating the snapshot in the same commit (and the README's findings):

    VERIFYDP_UPDATE_SNAPSHOT=1 python -m pytest tests/cli/test_verdict_snapshot.py

Each claim is checked once in the suite: the claims whose full-budget verdict a family's
tests already assert (their `EXPECTED`) are compared with the snapshot from there, and the
others are checked here, one test per claim (so the suite's workers share them).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.claims import (
    test_bun_lemmas,
    test_claims_bun,
    test_claims_bun_cluster,
    test_claims_bun_general,
    test_ebadi,
    test_hu,
    test_kifer_claims,
    test_must_alg1,
    test_must_figs,
    test_must_pa,
    test_must_pair,
    test_must_profiles,
    test_must_tables,
)
from verifydp.claims import catalogue
from verifydp.cli.main import main

SNAPSHOT = Path(__file__).with_name("verdicts.json")
COMMITTED: dict[str, str] = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
FAMILIES = {m.__name__: m.EXPECTED for m in (  # type: ignore[attr-defined]
    test_bun_lemmas, test_claims_bun, test_claims_bun_cluster, test_claims_bun_general,
    test_ebadi, test_hu, test_kifer_claims, test_must_alg1, test_must_figs, test_must_pa,
    test_must_pair, test_must_profiles, test_must_tables)}
ASSERTED = {cid for expected in FAMILIES.values() for cid in expected}
UPDATE = bool(os.environ.get("VERIFYDP_UPDATE_SNAPSHOT"))


def test_snapshot_names_every_claim() -> None:
    assert set(COMMITTED) == set(catalogue()), "regenerate the snapshot (module docstring)"


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_family_expectations_are_the_snapshot(family: str) -> None:
    """A family's asserted verdicts are the snapshot's (both change together)."""
    expected = FAMILIES[family]
    assert {c: v.value for c, v in expected.items()} == {c: COMMITTED.get(c) for c in expected}


@pytest.mark.skipif(UPDATE, reason="the snapshot is being regenerated")
@pytest.mark.parametrize("claim_id", sorted(set(COMMITTED) - ASSERTED))
def test_verdict_is_the_snapshot(claim_id: str) -> None:
    res = catalogue()[claim_id].check()
    assert res.verdict.value == COMMITTED[claim_id], res.summary()


@pytest.mark.skipif(not UPDATE, reason="set VERIFYDP_UPDATE_SNAPSHOT=1 to regenerate")
def test_regenerate_the_snapshot(capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["check", "--all", "--json", "--no-witnesses", "--no-progress",
                 "--workers", "2"])
    out, _ = capsys.readouterr()
    assert code == 0
    now = {o["claim"]: o["verdict"] for o in json.loads(out)}
    SNAPSHOT.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
