"""`check` and `hunt` on a real Dask cluster (issue 17, "Running on more than one machine";
README "Running on a cluster"; `verifydp.hunt.executors`).

A `distributed.LocalCluster` of 2 worker processes must give what local processes give: the
same verdicts, the same instances, byte-identical witness files that replay; and the tasks must
really run on the cluster (the scheduler saw them).  Claims are picked for speed (about a second
of checking each): two that hold, two refuted by their grid, one refuted by the hunt's search.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from pathlib import Path

import pytest

from verifydp.casebook import replay
from verifydp.cli.main import main
from verifydp.hunt.executors import SCHEDULER_ENV
from verifydp.hunt.search import _TimeUp, hard_stop

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")
key_split = dask.utils.key_split

CHECK = ("bun/lemA.4", "ebadi/bernoulli", "hu/def2", "ebadi/skip")
HUNT = ("must/prop7", "hu/def2", "must/table2:wr")
SNAPSHOT = json.loads((Path(__file__).parent / "verdicts.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  memory_limit=0) as c:
        yield c


def _json(argv: list[str], capsys: pytest.CaptureFixture[str]) -> object:
    code = main([*argv, "--json", "--no-progress"])
    out, err = capsys.readouterr()
    assert code == 0, err
    return json.loads(out)


def _comparable(results: list[dict]) -> list[dict]:
    """A check result without its timing and with the witness file's name only."""
    out = []
    for r in results:
        r = dict(r)
        r["detail"] = {k: v for k, v in r["detail"].items() if k != "seconds"}
        r["witness"] = r["witness"] and Path(r["witness"]).name
        out.append(r)
    return out


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def _ran_on(cluster, fn: str) -> int:
    """How many calls of `fn` the cluster's scheduler has seen finish (its task prefix is the
    name without leading underscores, as `dask.utils.key_split` cuts it)."""
    tp = cluster.scheduler.task_prefixes.get(key_split(f"{fn}-0123456789abcdef0123456789abcdef"))
    return 0 if tp is None else tp.state_counts.get("memory", 0)


# slow (issue 29): a real LocalCluster; the executor's slicing and usage errors stay in the suite
@pytest.mark.slow
def test_check_on_a_cluster_equals_local_processes(cluster, tmp_path, capsys):
    local = _json(["check", *CHECK, "--workers", "2", "--witness-dir", str(tmp_path / "l")],
                  capsys)
    before = _ran_on(cluster, "_check_one")
    remote = _json(["check", *CHECK, "--executor", "dask", "--scheduler",
                    cluster.scheduler_address, "--witness-dir", str(tmp_path / "d")], capsys)
    assert _ran_on(cluster, "_check_one") - before == len(CHECK)
    assert [r["claim"] for r in remote] == list(CHECK)  # the order asked for, not finishing order
    assert _comparable(remote) == _comparable(local)
    assert {r["claim"]: r["verdict"] for r in remote} == {c: SNAPSHOT[c] for c in CHECK}
    assert _files(tmp_path / "d") == _files(tmp_path / "l")
    refuted = [r for r in remote if r["verdict"] == "refuted"]
    assert len(refuted) == 2
    assert all(replay(Path(r["witness"])).confirmed for r in refuted)


@pytest.mark.slow
def test_check_finds_the_scheduler_in_the_environment(cluster, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(SCHEDULER_ENV, cluster.scheduler_address)
    before = _ran_on(cluster, "_check_one")
    (res,) = _json(["check", "hu/def2", "--executor", "dask", "--no-witnesses"], capsys)
    assert res["verdict"] == "refuted"
    assert _ran_on(cluster, "_check_one") - before == 1


@pytest.mark.slow
def test_hunt_on_its_own_local_cluster_equals_local_processes(tmp_path, capsys):
    """No --scheduler: the hunt starts (and closes) a LocalCluster of --workers processes."""
    runs = {}
    for name, extra in (("local", []), ("dask", ["--executor", "dask"])):
        report = _json(["hunt", *HUNT, "--budget", "4", "--workers", "2", *extra,
                        "--state", str(tmp_path / name / "state.json"),
                        "--witness-dir", str(tmp_path / name / "w")], capsys)
        runs[name] = {r["claim"]: r for r in report["claims"]}
    for claim in HUNT:
        local, remote = runs["local"][claim], runs["dask"][claim]
        for key in ("refuted", "check_verdict", "searched"):
            assert remote.get(key) == local.get(key), (claim, key)
        assert remote.get("error") is None
        assert remote["seconds"] < 4 + 3, claim  # the slice is kept on a worker thread too
    assert runs["dask"]["must/prop7"]["minimised"]["params"] == {"n": 2, "b": 1, "m": 1}
    assert not runs["dask"]["must/table2:wr"]["refuted"]
    assert _files(tmp_path / "dask" / "w") == _files(tmp_path / "local" / "w")
    for r in runs["dask"].values():
        if r.get("witness"):
            assert replay(Path(r["witness"])).confirmed


def test_a_search_off_the_main_thread_keeps_its_slice():
    """Dask runs tasks in worker threads, where SIGALRM never arrives: the search's hard stop
    must still fire there (a busy loop standing in for a hypothesis phase that never reaches
    an evaluation), and nothing may arrive after it has been left."""
    seen: dict[str, object] = {}

    def run() -> None:
        t0 = time.monotonic()
        try:
            with contextlib.suppress(_TimeUp), hard_stop([t0 + 0.5]):
                while time.monotonic() - t0 < 5:
                    sum(range(100))
            seen["stopped_after"] = time.monotonic() - t0
            time.sleep(0.6)  # past two more ticks
            seen["left_cleanly"] = True
        except BaseException as exc:  # noqa: BLE001 - reported by the assertions below
            seen["escaped"] = exc

    th = threading.Thread(target=run)
    th.start()
    th.join(10)
    assert "escaped" not in seen
    assert seen["stopped_after"] < 1.5
    assert seen["left_cleanly"]


@pytest.mark.parametrize("argv,msg", [
    (["check", "hu/def2", "--scheduler", "tcp://127.0.0.1:9"], "needs --executor dask"),
    (["hunt", "hu/def2", "--scheduler", "tcp://127.0.0.1:9"], "needs --executor dask"),
    (["check", "hu/def2", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9"],
     "cannot reach the Dask scheduler"),
    (["check", "hu/def2", "--executor", "ray"], "invalid choice"),
])
def test_executor_usage_errors(argv, msg, capsys):
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        assert main([*argv, "--no-witnesses", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert msg in err and "Traceback" not in err and err.count("\n") == 1
