"""Fuzzing every command's inputs (issue 17): argv, witness files, claim ids, budgets, design
files, regress targets, hunt state files, convert parameters — 580 generated inputs in all.

Each input runs in-process through `verifydp.cli.main` with a time budget. The contract
(README, command line): never a traceback, never an "internal error"; a usage error is one
line on stderr with exit 2 (a size-limit refusal names the limit); anything else exits 0
(or 1 for a witness that does not confirm / a regress disagreement) with its normal output.
"""

from __future__ import annotations

import faulthandler
import json
import math
import re
import string
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifydp.claims import catalogue
from verifydp.cli.main import main

ROOT = Path(__file__).resolve().parents[2]
CALL_BUDGET_S = 30.0
HANG_S = 120
FUZZ = settings(deadline=None, suppress_health_check=list(HealthCheck), database=None)
KNOWN = set(catalogue())

JUNK = ["", " ", "-1", "0", "nan", "inf", "-inf", "1e999", "1e-999", "abc", "1/0", "0x10",
        "9" * 50, "\x00", "é", "../", "/", "--", "-", "NaN", "1e9999999999", "[]", "{}",
        "null", "true", "3.5", "-0", "1_000"]
NUMBERS = st.one_of(st.sampled_from(JUNK), st.integers(-10**30, 10**30).map(str),
                    st.floats(allow_nan=True, allow_infinity=True).map(repr))


def run(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    # A hang is a failure: dump the stacks and end the run rather than wait forever.
    faulthandler.dump_traceback_later(HANG_S, exit=True, file=sys.__stderr__)
    start = time.monotonic()
    try:
        code = main(argv)
    finally:
        faulthandler.cancel_dump_traceback_later()
    took = time.monotonic() - start
    out, err = capsys.readouterr()
    assert took < CALL_BUDGET_S, f"{argv!r} took {took:.1f}s"
    assert "Traceback" not in err and "Traceback" not in out, (argv, err)
    assert "internal error" not in err, (argv, err)
    assert code in (0, 1, 2, 130), (argv, code)
    if code == 2:
        assert err.count("\n") <= 1 and err.startswith("verifydp"), (argv, err)
    if code == 1:  # a verdict, never an error
        assert out, (argv, err)
    return code, out, err


# ---------------------------------------------------------------- argv

COMMANDS = ["claims", "check", "hunt", "replay", "audit", "convert", "regress", "nope", ""]
FLAGS = ["--all", "--json", "--budget", "--workers", "--witness-dir", "--no-witnesses",
         "--resume", "--state", "--executor", "--html", "--claim", "--from", "--to", "--eps",
         "--delta", "--max-examples", "--no-grid", "--help", "--version", "-x", "--budget=",
         "--executor=ray"]


@settings(FUZZ, max_examples=120)
@given(argv=st.lists(st.one_of(st.sampled_from(FLAGS), NUMBERS,
                               st.text(string.printable, max_size=12)), max_size=6),
       cmd=st.sampled_from(COMMANDS))
def test_argv(capsys: pytest.CaptureFixture[str], tmp_path_factory: Any, argv: list[str],
              cmd: str) -> None:
    args = [cmd, *argv] if cmd else argv
    if any(a in KNOWN for a in args) or "--all" in args or cmd == "claims":
        args = ["check", "--budget", "-5", *args]  # never a real --all run: bad on purpose
    wdir = tmp_path_factory.mktemp("w")
    args = [a if a != "--witness-dir" else f"--witness-dir={wdir}" for a in args]
    run(capsys, args)


# ---------------------------------------------------------------- witness files

FIXTURES = ["ebadi_pinq_take.json", "bun_lemB.1_deletion.json", "must_thm5_ww.json",
            "ebadi_thm4.6.json", "must_prop7.json", "bun_thm3.1_upper.json"]
LEAVES = st.one_of(NUMBERS, st.integers(-10**12, 10**12), st.none(), st.booleans(),
                   st.floats(allow_nan=False, allow_infinity=False),
                   st.lists(st.integers(-3, 3), max_size=3), st.just({}),
                   st.just("Pow(Integer(10), Integer(100000000000))"),
                   st.just("__import__('os').system('false')"), st.just("a" * 3000))


def _paths(obj: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj[:4]):
            out += _paths(v, (*prefix, i))
    return out


def _mutate(obj: Any, path: tuple[Any, ...], value: Any, delete: bool) -> Any:
    if not path:
        return value
    cur = obj
    for k in path[:-1]:
        cur = cur[k]
    if delete and isinstance(cur, dict):
        del cur[path[-1]]
    else:
        cur[path[-1]] = value
    return obj


@settings(FUZZ, max_examples=200)
@given(data=st.data(), name=st.sampled_from(FIXTURES), value=LEAVES, delete=st.booleans(),
       mode=st.sampled_from(["leaf", "leaf", "leaf", "truncate", "bytes", "append"]))
def test_witness_files(capsys: pytest.CaptureFixture[str], tmp_path_factory: Any,
                       data: st.DataObject, name: str, value: Any, delete: bool,
                       mode: str) -> None:
    text = (ROOT / "counterexamples" / name).read_text(encoding="utf-8")
    obj = json.loads(text)
    path = tmp_path_factory.mktemp("r") / name
    if mode == "leaf":
        where = data.draw(st.sampled_from(_paths(obj)))
        path.write_text(json.dumps(_mutate(obj, where, value, delete)), encoding="utf-8")
    elif mode == "truncate":
        path.write_text(text[: data.draw(st.integers(0, len(text) - 1))], encoding="utf-8")
    elif mode == "bytes":
        path.write_bytes(data.draw(st.binary(max_size=200)))
    else:
        path.write_text(text + data.draw(st.text(max_size=5)), encoding="utf-8")
    run(capsys, ["replay", str(path), *data.draw(st.sampled_from([[], ["--json"]]))])


# ---------------------------------------------------------------- claim ids and budgets

@settings(FUZZ, max_examples=60)
@given(cid=st.text(min_size=1, max_size=30).filter(lambda s: s not in KNOWN
                                                   and not s.startswith("-")),
       cmd=st.sampled_from(["check", "hunt"]))
def test_claim_ids(capsys: pytest.CaptureFixture[str], cid: str, cmd: str) -> None:
    code, _, err = run(capsys, [cmd, cid, "--no-witnesses", "--no-progress", "--budget", "1"])
    assert code == 2 and "unknown claim" in err


def _valid_budget(text: str) -> bool:
    try:
        x = float(text)
    except ValueError:
        return False
    return math.isfinite(x) and x > 0.5


@settings(FUZZ, max_examples=60)
@given(budget=NUMBERS, workers=st.one_of(NUMBERS, st.just("1")),
       cmd=st.sampled_from(["check", "hunt"]))
def test_budgets_and_workers(capsys: pytest.CaptureFixture[str], tmp_path_factory: Any,
                             budget: str, workers: str, cmd: str) -> None:
    state = tmp_path_factory.mktemp("s") / "state.json"
    argv = [cmd, "must/prop7", "--no-witnesses", "--no-progress", f"--budget={budget}",
            f"--workers={workers}"]
    if cmd == "hunt":
        argv += ["--state", str(state)]
        if _valid_budget(budget):
            # a valid hunt runs for its budget (601 s was drawn, and a hunt that ends early
            # took 31 s on a slow machine): the fuzz is about parsing, so it stays short
            argv[4] = "--budget=0.5"
    run(capsys, argv)


# ---------------------------------------------------------------- design files (audit)

DESIGNS = sorted((ROOT / "examples").glob("*.toml"))


def _light(text: str) -> str:
    """A deployment composes thousands of releases (seconds each run); two keep the fuzz fast
    while every key of the file is still parsed and mutated."""
    return re.sub(r"(?m)^steps = .*$", "steps = 2", text)


@settings(FUZZ, max_examples=40)
@given(data=st.data(), design=st.sampled_from(DESIGNS),
       mode=st.sampled_from(["drop", "value", "truncate", "bytes", "line"]))
def test_design_files(capsys: pytest.CaptureFixture[str], tmp_path_factory: Any,
                      data: st.DataObject, design: Path, mode: str) -> None:
    lines = _light(design.read_text(encoding="utf-8")).splitlines()
    i = data.draw(st.integers(0, len(lines) - 1))
    if mode == "drop":
        lines.pop(i)
    elif mode == "value" and "=" in lines[i]:
        key = lines[i].split("=")[0]
        lines[i] = f"{key}= {data.draw(st.sampled_from(JUNK + ['-1', '1e308', '[1]', 'x']))}"
    elif mode == "truncate":
        lines = lines[:i]
    elif mode == "line":
        lines.insert(i, data.draw(st.text(string.printable, max_size=20)))
    path = tmp_path_factory.mktemp("d") / "design.toml"
    if mode == "bytes":
        path.write_bytes(data.draw(st.binary(max_size=100)))
    else:
        path.write_text("\n".join(lines), encoding="utf-8")
    run(capsys, ["audit", str(path), "--no-grid", "--no-witnesses", "--no-progress", "--json"])


# ---------------------------------------------------------------- regress, hunt state, convert

TARGETS = st.one_of(
    st.text(string.ascii_letters + ":._", max_size=20).map(lambda s: "zz_fuzz_" + s),
    st.sampled_from([":f", "m:", ":", "json:nonexistent", "math:pi", "zz_fuzz:f:g",
                     "json", "", "json.decoder:JSONDecoder.decode.x"]))


@settings(FUZZ, max_examples=40)
@given(target=TARGETS, claim=st.one_of(st.sampled_from(sorted(KNOWN)), st.text(max_size=10)))
def test_regress_targets(capsys: pytest.CaptureFixture[str], target: str, claim: str) -> None:
    code, _, _ = run(capsys, ["regress", target, "--claim", claim, "--max-examples", "3",
                              "--sound-examples", "0"])
    assert code == 2


@settings(FUZZ, max_examples=30)
@given(content=st.one_of(st.binary(max_size=100),
                         st.sampled_from([b"{}", b"[]", b'{"version": 1}', b'{"version": 2}',
                                          b'{"version": 1, "claims": []}',
                                          b'{"version": 1, "claims": {"must/prop7": 3}}',
                                          b'{"version": 1, "claims": {"x": {}}}'])))
def test_hunt_state_files(capsys: pytest.CaptureFixture[str], tmp_path_factory: Any,
                          content: bytes) -> None:
    state = tmp_path_factory.mktemp("h") / "state.json"
    state.write_bytes(content)
    run(capsys, ["hunt", "must/prop7", "--resume", "--state", str(state), "--budget", "0.5",
                 "--workers", "1", "--no-witnesses", "--no-progress"])


@settings(FUZZ, max_examples=30)
@given(src=st.text(max_size=8), dst=st.text(max_size=8), x=NUMBERS, y=NUMBERS)
def test_convert(capsys: pytest.CaptureFixture[str], src: str, dst: str, x: str,
                 y: str) -> None:
    from verifydp.convert import SOURCES
    from verifydp.convert import TARGETS as CONVERT_TARGETS

    run(capsys, ["convert", "--from", src or SOURCES[0], "--to", dst or CONVERT_TARGETS[0],
                 f"--eps={x}", f"--delta={y}"])
