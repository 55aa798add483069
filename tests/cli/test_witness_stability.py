"""`verifydp check` leaves the committed witnesses as they are (issue 27: after the README's
first command `git status` showed 20 modified files in counterexamples/).

Two causes, both covered: the order that decides which witness of a claim to keep compared
the hunt's provenance (`found_at`), so the check's equally small witness of the other
orientation replaced the committed hunt witness (P and P' swapped, "LP 2 pts" → "LP 3 pts");
and instance witnesses, always rewritten, must come out byte for byte as committed. The run
is the installed console script, twice, under different hash seeds (set and dict order of
strings), on claims whose checks take seconds; `check --all` itself is covered claim by claim
by tests/cli/test_verdict_snapshot.py.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# a dataset witness committed from the hunt (with found_at), and instance witnesses
CLAIMS = ["bun/lemB.1", "must/prop7", "ebadi/pinq:take", "hu/def2", "kifer/table1"]


def _check(witness_dir: Path, seed: str, cwd: Path) -> None:
    exe = shutil.which("verifydp") or str(Path(sys.executable).parent / "verifydp")
    proc = subprocess.run([exe, "check", *CLAIMS, "--witness-dir", str(witness_dir),
                           "--workers", "1", "--no-progress"], capture_output=True, text=True,
                          timeout=600, cwd=cwd, env={**os.environ, "PYTHONHASHSEED": seed})
    assert proc.returncode == 0, proc.stderr
    assert "5 claims: 5 refuted" in proc.stdout


def _files(d: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(d.iterdir()) if f.name != ".lock"}


def test_check_leaves_committed_witnesses_unchanged_and_is_deterministic(
        tmp_path: Path) -> None:
    committed = tmp_path / "committed"
    shutil.copytree(ROOT / "counterexamples", committed)
    before = _files(committed)
    _check(committed, "1", tmp_path)
    after = _files(committed)
    changed = sorted(n for n in before if after.get(n) != before[n])
    assert not changed, f"check rewrote committed witnesses: {changed}"
    assert set(after) == set(before)

    fresh = tmp_path / "fresh"
    _check(fresh, "2", tmp_path)
    for name, data in _files(fresh).items():
        if name == "README.md" or not name.endswith(".json"):
            continue
        if "found_at" in json.loads(before[name]):
            continue  # the committed one is the hunt's: kept over the check's, as above
        # a kept dataset witness may predate today's escaping; its content must agree
        assert json.loads(data) == json.loads(before[name]), f"{name} differs between runs"
