"""`verifydp regress MODULE:FUNCTION --claim ID` through the real entry point
(`verifydp.cli.main`, what the console script calls): a harness with its own parser hid
issue 27's `--map: missing value`, which the shared option checks in main raised for every
run without --map. The documented commands run through the installed console script in
tests/cli/test_documented_commands.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from verifydp.cli import main as verifydp_main

# the regress modules share one worker: their claims' certified truths are computed once per
# process (issue 29: 20.8 → 17.8 s measured apart vs together)
pytestmark = pytest.mark.xdist_group("regress")

USER_MODULE = '''
import math

def good(eps, m, n):
    return math.log1p(m / n * math.expm1(eps))

def half_eps(eps, m, n):  # e^{eps/2} in place of e^eps: unsound
    return math.log1p(m / n * math.expm1(eps / 2))

NOT_CALLABLE = 3

def renamed(epsilon, sample_size, population_size):
    return math.log1p(sample_size / population_size * math.expm1(epsilon))

def loose(eps, m, n):  # e^{2 eps} for e^eps: looser, sound
    return math.log1p(m / n * math.expm1(2 * eps))

def vec(eps, m, n):
    import numpy as np
    return np.log1p(m / n * np.expm1(eps))

def wor(eps, deltas, n, m):
    return math.log1p(m / n * math.expm1(eps)), m / n * deltas[0]

def acc_low(sigma, batch_size, n, steps, delta):
    return 0.01

def acc_missing(sigma, batch_size, n, steps, delta):
    import no_such_accounting_lib_xyz
    return no_such_accounting_lib_xyz.epsilon()
'''


def main(argv: list[str]) -> int:
    return verifydp_main(argv)


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


def test_map_sound_only_vectorised_and_params(user_dir: Path) -> None:
    assert main(["regress", "mylib_regress:renamed", "--claim", "bun/thm2.2", *SMALL,
                 "--map", "eps=epsilon,m=sample_size", "--map", "n=population_size"]) == 0
    assert main(["regress", "mylib_regress:loose", "--claim", "bun/thm2.2", *SMALL]) == 1
    assert main(["regress", "mylib_regress:loose", "--claim", "bun/thm2.2", *SMALL,
                 "--sound-only"]) == 0
    assert main(["regress", "mylib_regress:vec", "--claim", "bun/thm2.2", *SMALL,
                 "--vectorised"]) == 0
    assert main(["regress", "mylib_regress:wor", "--claim", "must/table2:wor", *SMALL,
                 "--params", "n=1..4,m=1|2,deltas=(0.25)"]) == 0


def test_json_numbers_and_a_witness_that_replays(
        user_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from verifydp.casebook import replay

    path = user_dir / "w.json"
    assert main(["regress", "mylib_regress:half_eps", "--claim", "bun/thm2.2", "--json",
                 "--sound-only", "--witness", str(path), *SMALL]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["witness"] == str(path) and out["agrees"] is None
    assert isinstance(out["unsound"]["values"][0], float)
    assert set(out["unsound"]["truth_lower"]) == {"lo", "hi", "lo_float", "hi_float"}
    assert replay(path).confirmed


def test_accountant_cli(user_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["regress", "mylib_regress:acc_low", "--accountant", "poisson",
                 "--params", "sigma=1.0,batch_size=10,steps=1"]) == 1
    assert "UNSOUND" in capsys.readouterr().out


@pytest.mark.parametrize("argv, message", [
    (["regress", "mylib_regress:renamed", "--claim", "bun/thm2.2"], "signature mismatch"),
    (["regress", "mylib_regress:good", "--claim", "bun/thm2.2", "--map", "x=y"], "not arguments"),
    (["regress", "mylib_regress:good", "--claim", "bun/thm2.2", "--map", "eps"], "NAME=VALUE"),
    (["regress", "mylib_regress:good", "--claim", "bun/thm2.2", "--params", "n=a"], "not a number"),
    (["regress", "mylib_regress:good", "--claim", "bun/thm2.2", "--params", "n=5..1"], "empty range"),
    (["regress", "mylib_regress:good", "--claim", "bun/thm2.2", "--params", "k=1"], "unknown parameter"),
    (["regress", "mylib_regress:good", "--claim", "bun/thm2.2", "--params", "m=5,n=2"], "no input"),
    (["regress", "mylib_regress:acc_low", "--accountant", "poisson", "--params", "steps=1..5"],
     "not '1..5'"),
    (["regress", "mylib_regress:good", "--accountant", "poisson"], "rate q or the batch size"),
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
    assert main(["regress", "mylib_regress:good"]) == 2


def test_missing_dependency_is_one_line_exit_2_not_a_finding(
        user_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 27: an accountant importing a module that is not installed was reported as
    'minimal unsound input: raised an exception … ModuleNotFoundError', exit 1."""
    assert main(["regress", "mylib_regress:acc_missing", "--accountant", "poisson"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "pip install no_such_accounting_lib_xyz" in err


def test_an_empty_value_is_still_refused(user_dir: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    """`--map=--` (Python 3.11's argparse hands the appending option [[]]) is a usage error."""
    assert main(["regress", "mylib_regress:good", "--claim", "bun/thm2.2", "--map=--"]) == 2
    assert "--map: missing value" in capsys.readouterr().err
