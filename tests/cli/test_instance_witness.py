"""Instance witnesses: refuted claims without a dataset witness still leave a replayable file."""

from __future__ import annotations

import json
from pathlib import Path

from verifydp.casebook import replay
from verifydp.claims import Budget, get_claim
from verifydp.hunt.portfolio import offer_witness
from verifydp.witness.instance import InstanceWitness


def _witness(claim: str) -> InstanceWitness:
    res = get_claim(claim).check(Budget())
    assert isinstance(res.witness, InstanceWitness)
    return res.witness


def test_instance_witness_replays_and_tampering_is_caught(tmp_path: Path) -> None:
    w = _witness("must/prop7")
    path, _, written = offer_witness(w, tmp_path)
    assert written and replay(path).confirmed
    obj = json.loads(path.read_text(encoding="utf-8"))
    assert obj["kind"] == "instance" and obj["params"]
    # the stored numbers are not trusted: a parameter point the checker does not refute fails
    obj["params"] = {**obj["params"], "n": -1}
    path.write_text(json.dumps(obj), encoding="utf-8")
    assert not replay(path).confirmed
    # no datasets, so no CSV; the companion says what the point is and how to replay it
    assert not list(tmp_path.glob("*.csv"))
    md = (tmp_path / "must_prop7.md").read_text(encoding="utf-8")
    assert "verifydp replay must_prop7.json" in md and get_claim("must/prop7").paper in md


def test_statement_level_witness_replays(tmp_path: Path) -> None:
    w = _witness("hu/mean")
    assert w.params == {}
    path, _, _ = offer_witness(w, tmp_path)
    assert replay(path).confirmed
    obj = json.loads(path.read_text(encoding="utf-8"))
    obj["statement"] = "a statement that does not exist"
    path.write_text(json.dumps(obj), encoding="utf-8")
    assert not replay(path).confirmed


def test_a_dataset_witness_is_never_replaced_by_an_instance_witness(tmp_path: Path) -> None:
    res = get_claim("bun/lemB.1").check(Budget())
    assert res.witness is not None and not isinstance(res.witness, InstanceWitness)
    offer_witness(res.witness, tmp_path)
    inst = InstanceWitness("bun/lemB.1", "s", {"n": 1}, "c", "a")
    _, _, written = offer_witness(inst, tmp_path)
    assert not written
    assert json.loads((tmp_path / "bun_lemB.1.json").read_text(encoding="utf-8")).get(
        "kind", "sampling") != "instance"
