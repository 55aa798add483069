"""Readable numbers everywhere, one number format in JSON (issue 27).

People read decimals — never an exact rational such as `8/1875`, a `Fraction(5, 4)`, a
dict's repr `{'n': 2}` or `epsilon = t=2` — in the text of `check`, `hunt`, `replay` and
`convert`; JSON keeps exact rationals as "p/q" and writes every other number in the one
format of `verifydp.exact.numtext.decimal_string`. `regress` runs as the user runs it,
through the installed console script (`_run`: its user function is imported from the working
directory); `check` (text and JSON), `hunt`, `replay`, `convert` and `audit` run in-process
through `verifydp.cli.main`, the function the console script calls (`_main`, `--workers 1`
for check: the claims inline): each of them runs through the console script in
tests/cli/test_documented_commands.py, and a console-script run pays about 1.5 s of CPU to
start (issue 29).
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import shutil
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from tests.shared import MUST_GROUP, REPLAY_GROUP, checked
from verifydp.cli.main import main
from verifydp.exact.numtext import ONE_FORMAT, fraction_text, json_number, readable

ROOT = Path(__file__).resolve().parents[2]
RATIONAL = re.compile(r"(?<![\w.])\d+/\d+(?![\w])")  # 8/1875, 9/5: not in human text
REPRS = ("Fraction(", "{'", '{"', "t=", "ε=")
NUMERIC = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
EXACT = re.compile(r"^-?\d+/\d+$")


def _run(*argv: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    exe = shutil.which("verifydp") or str(Path(sys.executable).parent / "verifydp")
    return subprocess.run([exe, *argv], capture_output=True, text=True, timeout=600, cwd=cwd)


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> subprocess.CompletedProcess[str]:
    """`verifydp *argv` in-process (`verifydp.cli.main`), shaped like `_run`'s result."""
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(["verifydp", *argv], code, out, err)


def _human(text: str) -> None:
    """No rational, repr or `t=` in text for people."""
    assert not RATIONAL.findall(text), RATIONAL.findall(text)
    for r in REPRS:
        assert r not in text, f"{r!r} in {text}"


def _numbers(obj: Any, path: str = "") -> list[tuple[str, str]]:
    """Every string in a JSON document that is a number, with where it is."""
    if isinstance(obj, dict):
        return [x for k, v in obj.items() for x in _numbers(v, f"{path}.{k}")]
    if isinstance(obj, list):
        return [x for v in obj for x in _numbers(v, f"{path}[]")]
    return [(path, obj)] if isinstance(obj, str) and NUMERIC.match(obj) else []


# ------------------------------------------------------------------ the formatter itself

@pytest.mark.parametrize(("text", "want"), [
    ("claimed e^ε' ≤ 9/5, actual sup ratio = 5/2", "claimed e^ε' ≤ 1.8, actual sup ratio = 2.5"),
    ("q = m/N = 8/1875", "q = m/N = 0.00426667"),
    ("first at {'n': 2, 'b': 1, 'm': 1}: η = 1/2", "first at (n = 2, b = 1, m = 1): η = 0.5"),
    ("{'exp_ep': Fraction(5, 4)}", "(exp_ep = 1.25)"),
    ("violated at n = 1, epsilon = t=11/10: x", "violated at n = 1, e^ε = 1.1: x"),
    ("finding: 12/12 cells reproduced", "finding: 12 of 12 cells reproduced"),
    ("search: fails at 41/54, e.g.", "search: fails at 41 of 54, e.g."),
    ("MUST.WW ε=1/20 delta'", "MUST.WW ε=0.05 delta'"),
    ("recomputed [1.288197e-1, 7.26582e-08]", "recomputed [0.1288197, 7.26582e-8]"),
    ("δ'=delta_1/4, r = 2e5/3e5, (ub+1)/(|D|+1)", "δ'=delta_1/4, r = 2e5/3e5, (ub+1)/(|D|+1)"),
    ("t ∈ {11/10, 2, 5}, {x}", "t ∈ {1.1, 2, 5}, {x}"),
])
def test_readable(text: str, want: str) -> None:
    assert readable(text) == want


def test_fraction_text_and_json_number() -> None:
    assert [fraction_text(Fraction(a, b)) for a, b in ((1, 2), (1, 8), (37, 27), (7, 1))] \
        == ["0.5", "0.125", "1.37037", "7"]
    assert [json_number(x) for x in ("0.672640", "7.26582e-08", "4.4E-7", "0.10", "3/4")] \
        == ["0.67264", "7.26582e-8", "4.4e-7", "0.1", "3/4"]


# ------------------------------------------------------------------ each subcommand

CHECKED = ["must/prop7", "ebadi/fraction:partition", "bun/thm5.3:event"]


def test_check_text_has_decimals_only(capsys: pytest.CaptureFixture[str]) -> None:
    proc = _main(capsys, "check", *CHECKED, "--no-witnesses", "--no-progress", "--workers", "1")
    assert proc.returncode == 0, proc.stderr
    assert "3 claims: 3 refuted" in proc.stdout
    _human(proc.stdout)
    flat = " ".join(proc.stdout.split())
    assert "e^ε = 1.1" in flat and "p = 0.333333" in flat  # was epsilon = t=11/10, p = 1/3
    assert "(n = 2, b = 1, m = 1)" in flat  # was {'n': 2, 'b': 1, 'm': 1}


# One `check --json` serves the two JSON tests below (issue 29: kifer/thm6.3 and
# kifer/rdp-tail were checked by both); both tests sit in one xdist_group so the run happens
# once in the suite.
CHECKED_JSON = ["kifer/bayes", "kifer/bayes:corrected", "kifer/rdp-tail", "kifer/thm6.3",
                "kifer/gdp", "must/prop7"]


@pytest.fixture(scope="module")
def check_json() -> dict[str, dict[str, Any]]:
    """`verifydp check CHECKED_JSON --json` in-process, each claim's object by id."""
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = main(["check", *CHECKED_JSON, "--json", "--no-witnesses", "--no-progress",
                     "--workers", "1"])
    assert code == 0, stderr.getvalue()
    out = {o["claim"]: o for o in json.loads(stdout.getvalue())}
    assert list(out) == CHECKED_JSON
    return out


@pytest.mark.xdist_group(MUST_GROUP)
def test_check_json_numbers_are_the_one_format(check_json: dict[str, dict[str, Any]]) -> None:
    # kifer's checkers write 0.983200 and 7.26582e-08; thm6.3 a power 0.672640
    numbers = _numbers([check_json[c] for c in ("kifer/bayes:corrected", "kifer/thm6.3",
                                                "kifer/rdp-tail", "must/prop7")])
    assert len(numbers) > 20
    everything = _numbers(list(check_json.values()))
    bad = [(p, s) for p, s in everything if not (ONE_FORMAT.match(s) or EXACT.match(s))]
    assert not bad, bad[:5]


def test_hunt_text_and_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ("hunt", "must/prop7", "--budget", "4", "--workers", "1", "--no-witnesses",
            "--no-progress", "--state", str(tmp_path / "state.json"))
    proc = _main(capsys, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    row = json.loads(proc.stdout)["claims"][0]
    assert isinstance(row["best_margin"], str) and ONE_FORMAT.match(row["best_margin"])
    assert row["first_witness_s"] == round(row["first_witness_s"], 3)
    proc = _main(capsys, *args)
    assert proc.returncode == 0, proc.stderr
    _human(proc.stdout)


# in-process: each replay re-checks its claim once per process, shared with the modules that
# replay the same witnesses (tests/shared.py)
@pytest.mark.xdist_group(REPLAY_GROUP)
@pytest.mark.parametrize("name", ["bun_thm5.3_event", "must_prop7", "ebadi_thm4.6",
                                  "must_sec3.3_pair", "must_thm5_ww"])  # each kind
def test_replay_text_has_decimals_only(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("replay", str(ROOT / "counterexamples" / f"{name}.json"))
    proc = _main(capsys, *argv)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "CONFIRMED" in proc.stdout
    _human(proc.stdout)
    assert "≈" not in proc.stdout.replace("e^charge", "")  # "5 ≈ 5" is gone


def test_convert_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ("convert", "--from", "zcdp", "--to", "approx", "--rho", "2.63", "--delta", "1e-10")
    proc = _main(capsys, *argv)
    assert proc.returncode == 0, proc.stderr
    _human(proc.stdout)
    assert "α = 3.85" in proc.stdout  # was α = 77/20
    data = json.loads(_main(capsys, *argv, "--json").stdout)
    sharper = next(v for v in data["values"] if v["role"] == "sharper bound")
    assert sharper["at"] == {"alpha": "77/20"}  # the exact value beside the decimal
    assert all(ONE_FORMAT.match(v[k]) for v in data["values"] for k in ("lo", "hi"))


# ------------------------------------------------------------------ audit, regress, claim text

AUDIT_RATIONAL = re.compile(r"(?<![\w./-])\d+/\d+(?![\w/])")  # not a date or a path


def test_audit_text_has_decimals_only(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                      ) -> None:
    """γ = 8/1875 (must/table2:poisson's row), r = 1/10 (thm7.2's), Pr[K ≥ 2] = 9.04e-06 (a
    red flag) and the base's δ = 1/100 were written as rationals or %g in the audit's text."""
    design = tmp_path / "poisson_delta.toml"
    design.write_text((ROOT / "examples" / "dpsgd_poisson.toml").read_text(encoding="utf-8")
                      .replace('relation = "add-remove"', 'relation = "add-remove"\n'
                               'delta = "1/100"')
                      .replace("epsilon = 0.01", 'epsilon = 0.01\ndelta = "1/20"'),
                      encoding="utf-8")
    texts = []
    for path in (design, ROOT / "examples" / "business_survey_proportional_randomised.toml",
                 ROOT / "examples" / "dpsgd_with_replacement.toml"):
        proc = _main(capsys, "audit", str(path), "--no-witnesses", "--no-progress", "--no-grid")
        assert proc.returncode in (0, 1), proc.stderr
        texts.append(" ".join(proc.stdout.split()))
    for text in texts:
        assert not AUDIT_RATIONAL.findall(text), AUDIT_RATIONAL.findall(text)
        for r in REPRS:
            assert r not in text, r
    assert "γ = 0.00426667" in texts[0] and "δ' ≤ 4.27e-5" in texts[0]
    assert "r = 0.1, every size ≥ 1/r" in texts[1]
    assert "(Pr[K ≥ 2] = 9.04e-6)" in texts[2]


def test_audit_guarantee_and_hypothesis_text() -> None:
    from verifydp.audit.spec import Guarantee
    from verifydp.population import Relation

    g = Guarantee(Fraction(1, 2), Fraction(1, 100), Relation.ADD_REMOVE)
    assert g.describe() == "ε = 0.5, δ = 0.01 (add-remove)"  # was δ = 1/100
    assert Guarantee(Fraction(1), Fraction(0), Relation.REPLACE).describe() == "ε = 1 (replace)"


def test_regress_text_reads_eps_1(tmp_path: Path) -> None:
    """`at (eps=1.0, m=1, n=1): yours 2.0, expected ε' ∈ 1` read as `eps = 1`, `yours 2`,
    `ε' = 1`; the tolerance as 1e-6, not 1e-06."""
    (tmp_path / "planted.py").write_text(
        "import math\n\ndef double(eps, m, n):\n"
        "    return math.log1p(m / n * math.expm1(2 * eps))\n", encoding="utf-8")
    proc = _run("regress", "planted:double", "--claim", "bun/thm2.2", cwd=tmp_path)
    assert proc.returncode == 1, proc.stdout + proc.stderr
    line = next(x for x in proc.stdout.splitlines() if "minimal disagreement" in x)
    assert re.search(r"at \(eps = [\d.e-]+, m = \d+, n = \d+\): yours [\d.e-]+, "
                     r"expected ε' (=|∈) ", line), line
    assert "rtol = 1e-6, atol = 1e-12" in proc.stdout
    _human(proc.stdout.replace("planted:double", ""))
    for r in ("=1.0", "eps=", "e-0"):
        assert r not in proc.stdout, r


def test_regress_describe_formats_every_argument() -> None:
    from verifydp.exact.interval import Bracket
    from verifydp.regress.core import Mismatch

    paper = Mismatch("paper", {"eps": 1.0, "deltas": (0, 1), "n": 1, "delta": 1e-05}, "2.0",
                     "ε' ∈ 1", "ε' off by 1", values=(2.0,), bound=Bracket.point(Fraction(1)))
    assert paper.describe() == ("differs from the printed formula at (eps = 1, deltas = (0, 1), "
                                "n = 1, delta = 1e-5): yours 2, expected ε' = 1 (ε' off by 1)")
    unsound = Mismatch("unsound", {"eps": 0.5, "r": 0.125}, "0.25", "worst ε' ≥ 0.4620000001",
                       values=(0.25, 0.5), floor=Fraction(4620000001, 10**10))
    assert unsound.describe().endswith("at (eps = 0.5, r = 0.125): yours (0.25, 0.5), "
                                       "expected worst ε' ≥ 0.462")


KIFER = ["kifer/bayes", "kifer/rdp-tail", "kifer/thm6.3", "kifer/gdp"]
MUST = ["must/fig4", "must/sec3.3:pair:corrected"]


@pytest.mark.xdist_group(MUST_GROUP)
def test_claim_sentences_use_the_one_format(check_json: dict[str, dict[str, Any]]) -> None:
    """kifer's and MUST's claimed/actual sentences wrote `≤ 3.72665e-06`, `≤ 5.0855e+13`,
    `max upper end -2.98e-09` (Python's %g); numbers in a sentence are in the one format.

    kifer's claims come from `check --json` (the fixture); MUST's two
    (≈ 10 s of checking) are the same full-budget checks that tests/claims/test_must_figs.py
    and test_must_pair.py read, as `check --json` writes each claim (`res.to_json()`,
    verifydp/cli/main.py `_check_one`), computed once for all three (issue 29)."""
    objs = [check_json[c] for c in KIFER] + [checked(c).to_json() for c in MUST]
    assert [o["claim"] for o in objs] == KIFER + MUST
    sci = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?[eE][-+]?\d+(?![\w.])")
    bad, texts = [], set()
    for claim in objs:
        for inst in claim["instances"]:
            for key in ("claimed", "actual"):
                texts.add(inst[key])
                bad += [(claim["claim"], key, m) for m in sci.findall(inst[key])
                        if not ONE_FORMAT.match(m)]
    assert not bad, bad[:5]
    assert {"P(ratio ≥ e^ε) ≤ 3.72665e-6", "LHS ≤ 5.0855e13"} <= texts
