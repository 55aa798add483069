"""`verifydp regress MODULE:FUNCTION --claim ID` through a small argparse harness (the lead
wires `register`/`run` into verifydp/cli/main.py)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from verifydp.cli import regress as cli

USER_MODULE = '''
import math

def good(eps, m, n):
    return math.log1p(m / n * math.expm1(eps))

def half_eps(eps, m, n):  # e^{eps/2} in place of e^eps: unsound
    return math.log1p(m / n * math.expm1(eps / 2))

NOT_CALLABLE = 3
'''


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="verifydp")
    cli.register(parser.add_subparsers(dest="command", required=True))
    return cli.run(parser.parse_args(argv))


@pytest.fixture
def user_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "mylib_regress.py").write_text(USER_MODULE)
    monkeypatch.chdir(tmp_path)
    return tmp_path


SMALL = ["--max-examples", "30", "--sound-examples", "10"]


def test_agreeing_function_exits_0(user_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["regress", "mylib_regress:good", "--claim", "bun/thm2.2", *SMALL]) == 0
    assert "agrees with the printed formula" in capsys.readouterr().out


def test_planted_bug_exits_1_with_minimal_witness(
        user_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["regress", "mylib_regress:half_eps", "--claim", "bun/thm2.2", "--json",
                 *SMALL]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["ok"] is False and out["sound"] is False
    assert out["disagreement"]["params"] == {"eps": 1.0, "m": 1, "n": 1}
    assert out["unsound"]["kind"] == "unsound"


@pytest.mark.parametrize("argv, message", [
    (["regress", "mylib_regress", "--claim", "bun/thm2.2"], "MODULE:FUNCTION"),
    (["regress", "no_such_module_xyz:f", "--claim", "bun/thm2.2"], "cannot import"),
    (["regress", "mylib_regress:missing", "--claim", "bun/thm2.2"], "no attribute"),
    (["regress", "mylib_regress:NOT_CALLABLE", "--claim", "bun/thm2.2"], "not callable"),
    (["regress", "mylib_regress:good", "--claim", "bun/nope"], "no regress adapter"),
    (["regress", "mylib_regress:good", "--claim", "bun/thm2.2", "--max-examples", "0"], "must be"),
])
def test_usage_errors_exit_2_with_one_line(
        user_dir: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_missing_claim_option_is_an_argparse_usage_error(user_dir: Path) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["regress", "mylib_regress:good"])
    assert exc.value.code == 2
