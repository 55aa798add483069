"""The command-line contract (README.md, command line): verdicts, JSON shape, exit codes, one-line errors."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.shared import REPLAY_GROUP
from verifydp.cli.main import main

ROOT = Path(__file__).resolve().parents[2]

# one worker with the other modules that replay the same claims' witnesses (tests/shared.py)
pytestmark = pytest.mark.xdist_group(REPLAY_GROUP)
VERDICTS = {"refuted", "holds-on-instance", "proved", "inconclusive"}


def run(capsys, *argv: str) -> tuple[int, str, str]:  # type: ignore[no-untyped-def]
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_claims_lists_every_id(capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(capsys, "claims")
    assert code == 0
    for cid in ("bun/thm2.2", "bun/thm4.3", "bun/thm7.2", "bun/lemB.1"):
        assert cid in out
    code, out, _ = run(capsys, "claims", "--json")
    assert {c["claim"] for c in json.loads(out)} >= {"bun/thm3.1:upper", "bun/sec4.1"}


def test_check_json_shape(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(
        capsys, "check", "bun/sec4.1", "bun/lemB.1", "--json", "--witness-dir", str(tmp_path)
    )
    assert code == 0
    objs = json.loads(out)
    assert [o["claim"] for o in objs] == ["bun/sec4.1", "bun/lemB.1"]
    for o in objs:
        assert set(o) == {"claim", "verdict", "instances", "witness", "detail", "scope"}
        assert o["verdict"] in VERDICTS
        assert o["instances"]
    refuted = objs[1]
    assert refuted["verdict"] == "refuted" and Path(refuted["witness"]).exists()
    assert (tmp_path / "README.md").exists()
    code, out, _ = run(capsys, "replay", refuted["witness"])
    assert code == 0 and "CONFIRMED" in out


def test_tampered_witness_is_not_confirmed(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    run(capsys, "check", "bun/thm3.1:upper", "--json", "--witness-dir", str(tmp_path))
    path = tmp_path / "bun_thm3.1_upper.json"
    obj = json.loads(path.read_text())
    obj["mechanism"]["table"][0]["accept"] = "1"  # breaks the DP constraints or the ratio
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(obj))
    code, out, _ = run(capsys, "replay", str(bad))
    assert code == 1 and "CONFIRMED: " not in out


@pytest.mark.parametrize(
    "argv",
    [
        ("check", "bun/no-such-claim"),
        ("check",),
        ("check", "--all", "bun/thm2.2"),
        ("check", "bun/thm2.2", "--budget", "-1"),
        ("replay", "/nonexistent/witness.json"),
    ],
)
def test_bad_input_is_one_line_exit_2(capsys, argv) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("verifydp: ") and "Traceback" not in err


def test_malformed_witness_file(capsys, tmp_path) -> None:  # type: ignore[no-untyped-def]
    bad = tmp_path / "w.json"
    bad.write_text("{not json")
    code, _, err = run(capsys, "replay", str(bad))
    assert code == 2 and err.count("\n") == 1
    bad.write_text(json.dumps({"claim": "x"}))
    code, _, err = run(capsys, "replay", str(bad))
    assert code == 2 and err.count("\n") == 1


@pytest.mark.slow  # every file; each witness kind replays in the suite (tests/witness/test_tamper.py)
def test_committed_counterexamples_replay(capsys) -> None:  # type: ignore[no-untyped-def]
    """Every committed witness replays as confirmed. The files tests/witness/test_tamper.py
    replays untampered (its control, the same assertion and stricter) are not replayed twice
    (issue 29: one sweep per file)."""
    from tests.witness.test_tamper import CASES

    files = sorted((ROOT / "counterexamples").glob("*.json"))
    assert files, "counterexamples/ must hold the witnesses of the refuted claims"
    assert set(CASES) <= {f.name for f in files}
    for f in (f for f in files if f.name not in CASES):
        code, out, _ = run(capsys, "replay", str(f))
        assert code == 0 and "CONFIRMED" in out, f


def test_console_script_is_installed() -> None:
    exe = shutil.which("verifydp") or str(Path(sys.executable).parent / "verifydp")
    proc = subprocess.run([exe, "claims"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "bun/thm2.2" in proc.stdout
    proc = subprocess.run([exe, "check", "nope"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
