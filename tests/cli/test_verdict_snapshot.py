"""Every claim's verdict against a committed snapshot (`tests/cli/verdicts.json`).

A refactoring must not change a verdict; a change of mathematics that does must say so by
regenerating the snapshot in the same commit (and the README's findings):

    VERIFYDP_UPDATE_SNAPSHOT=1 python -m pytest tests/cli/test_verdict_snapshot.py
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from verifydp.cli.main import main

SNAPSHOT = Path(__file__).with_name("verdicts.json")


def test_check_all_matches_the_committed_verdicts(capsys) -> None:  # type: ignore[no-untyped-def]
    code = main(["check", "--all", "--json", "--no-witnesses", "--no-progress",
                 "--workers", "2"])
    out, _ = capsys.readouterr()
    assert code == 0
    now = {o["claim"]: o["verdict"] for o in json.loads(out)}
    if os.environ.get("VERIFYDP_UPDATE_SNAPSHOT"):
        SNAPSHOT.write_text(json.dumps(now, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    committed = json.loads(SNAPSHOT.read_text(encoding="utf-8"))
    changed = {c: (committed.get(c), v) for c, v in now.items() if committed.get(c) != v}
    gone = sorted(set(committed) - set(now))
    assert not changed and not gone, f"verdicts changed {changed}; claims gone {gone}"
