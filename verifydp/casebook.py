"""The casebook: every witness file in `counterexamples/`, its index, and replay dispatch.

A witness names its kind; each kind recomputes everything from the stored inputs and never
trusts the stored numbers (docs/foundations.md#witnesses). This module sits above the claim
catalogue because two kinds need it: instance witnesses re-run a claim's certified check, and
some sampling witnesses re-derive a claim's parameters from the stored mechanism.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Callable, Iterator
from fractions import Fraction
from pathlib import Path
from typing import Any

import sympy

from verifydp.claims import Budget, UnknownClaim, catalogue, get_claim
from verifydp.claims.base import Verdict
from verifydp.claims.bun.amplification import replace_pair
from verifydp.claims.bun.general import thm53_params
from verifydp.claims.must.pair import claimed_datasets, hockey_stick_mixtures
from verifydp.designs import SRSWR
from verifydp.epsilon import EpsSpec
from verifydp.exact.tfunc import EPS
from verifydp.files import NotRegular, TooLarge, read_bounded
from verifydp.population import Relation
from verifydp.witness import base as sampling
from verifydp.witness import gaussian_sum, group, pinq
from verifydp.witness import instance as instance_witness
from verifydp.witness import regress as regress_witness
from verifydp.witness.base import (
    ReplayReport,
    WitnessFormatError,
    atomic_write,
    witness_files,
    witness_order,
    witness_size,
    witness_stem,
)
from verifydp.witness.base import write_witness as base_write
from verifydp.witness.companion import KNOWN_KINDS, ClaimAbout
from verifydp.witness.schema import validate
from verifydp.witness.text import (
    LIMITS,
    WitnessLimitError,
    check_limits,
    decode_point,
    exact,
    parse_srepr,
)

try:
    import fcntl
except ImportError:  # not POSIX: writes stay atomic, only the compare-and-write is unlocked
    fcntl = None  # type: ignore[assignment]
from verifydp.witness.instance import normal_params
from verifydp.worstcase import MechanismClass, worst_case_ratio

__all__ = ["KINDS", "bound_to_claim", "claim_about", "offer_witness", "regenerate", "replay",
           "replay_instance", "replay_object", "write_index", "write_witness"]


def _thm53(pair: Any, design: Any, accept: Any) -> dict[str, Any] | None:
    return thm53_params(pair, design, accept, "c0")


# parameters a sampling witness's claimed value depends on, re-derived from its mechanism
DERIVATIONS = {"bun-thm5.3": _thm53}


@functools.lru_cache(maxsize=64)
def _checked(claim_id: str) -> Any:
    """A claim's certified check, run from scratch once per process (replaying every witness
    of one claim, as the tamper tests do, costs one check)."""
    return get_claim(claim_id).check(Budget())


def replay_instance(obj: dict[str, Any]) -> ReplayReport:
    """Replay an instance witness: re-run the claim's certified check from scratch and find the
    same instance (or statement) refuted again. The stored texts (claimed, actual, note) are
    shown, so each must be the recomputed one: an edited number is refused, not displayed."""
    claim_id = obj["claim"]
    key = normal_params(obj["params"])
    lines = [f"claim {claim_id}", f"instance {key}",
             f"stored: claimed {obj['claimed']['value']}; actual {obj['actual']['value']}",
             "re-running the claim's certified check from scratch …"]
    if obj["quantity"] != obj["statement"]:
        return ReplayReport(False, (*lines, "NOT confirmed: the quantity shown is not the "
                                            "statement (the file was edited)"))
    res = _checked(claim_id)
    # the same parameters may recur in other statements: match the statement first
    for st in (s for s in res.statements if s.text == obj["statement"]):
        if not obj["params"]:  # a statement refuted as a whole
            what, verdict = "statement", st.verdict
            texts = (st.text, st.note, "")
            lines.append(f"recomputed: {st.note}")
        else:
            inst = next((i for i in st.instances if normal_params(i.params) == key), None)
            if inst is None:
                continue
            what, verdict = "instance", inst.verdict
            texts = (inst.claimed, inst.actual, inst.note)
            lines.append(f"recomputed: claimed {inst.claimed}; actual {inst.actual}")
        if texts != (obj["claimed"]["value"], obj["actual"]["value"], obj["note"]):
            return ReplayReport(False, (*lines, f"NOT confirmed: the stored claimed, actual or "
                                                f"note of the {what} is not the recomputed one "
                                                "(the file was edited)"))
        ok = verdict is Verdict.REFUTED
        lines.append(f"CONFIRMED: the {what} is refuted" if ok
                     else f"NOT confirmed: the {what} is now {verdict.value}")
        return ReplayReport(ok, tuple(lines))
    return ReplayReport(False, (*lines, "NOT confirmed: the checker no longer has this "
                                        "statement or instance"))


# every witness kind and its replay; "sampling" (design + acceptance table) is the default
KINDS: dict[str, Callable[[dict[str, Any]], ReplayReport]] = {
    "sampling": lambda obj: sampling.replay_json(obj, DERIVATIONS),
    "pinq-plan": pinq.replay_json,
    "group-profile": group.replay_json,
    "gaussian-sum": lambda obj: gaussian_sum.replay_json(obj, hockey_stick_mixtures,
                                                         claimed_datasets),
    "instance": replay_instance,
    regress_witness.KIND: regress_witness.replay_json,
}


def replay_object(obj: dict[str, Any], bind: bool = True) -> ReplayReport:
    """Re-verify a parsed witness of any kind; a witness about a catalogued claim must also be
    one that claim's checker produces (`bound_to_claim`). `bind=False` only re-verifies the
    violation of the bound the file stores (how mutation tests check a mutant's witness)."""
    if not isinstance(obj, dict):
        raise ValueError("a witness is a JSON object")
    check_limits(obj)
    kind = obj.get("kind", "sampling")
    if kind not in KINDS:
        raise ValueError(f"unknown witness kind {kind!r} (known: {', '.join(KINDS)})")
    if not isinstance(obj.get("claim"), str):
        raise ValueError("the witness names no claim")
    _check_fields(kind, obj)
    validate(obj, SCHEMAS[kind])
    claim_id = obj["claim"]
    if kind != regress_witness.KIND and claim_id not in catalogue() and not (
            claim_id.startswith("audit/") or claim_id in PEER_CLAIMS):
        raise ValueError(f"unknown claim {claim_id[:80]!r} (run `verifydp claims` to list them)")
    report = KINDS[kind](obj)
    if bind and report.confirmed and kind in BOUND_KINDS:
        problem = bound_to_claim(obj)
        if problem:
            return ReplayReport(False, (*report.lines[:-1], f"NOT confirmed: {problem}"))
        if obj["claim"].startswith(UNBOUND_PREFIXES):
            return ReplayReport(True, (*report.lines[:-1], "(not a catalogued statement: "
                                       "judged against the bound stored in the file)",
                                       report.lines[-1]))
    return report


# the fields of each kind this package writes (`to_json`); "found_at" is optional everywhere.
# A file with other fields was not written by verifydp, so replay refuses it rather than
# guess which of its numbers matter
FIELDS: dict[str, frozenset[str]] = {
    "sampling": frozenset({"actual", "base_mechanism_class", "claim", "claimed", "design",
                           "design_prime", "direction", "event", "mechanism", "populations",
                           "probabilities", "quantity", "tool"}),
    "pinq-plan": frozenset({"actual", "claim", "claimed", "datasets", "kind", "noise", "plan",
                            "populations", "quantity", "t", "tool"}),
    "group-profile": frozenset({"actual", "claim", "claimed", "class", "design", "kind", "m",
                                "mechanism", "n", "populations", "quantity", "t_prime", "tool"}),
    "instance": frozenset({"actual", "claim", "claimed", "kind", "note", "params", "quantity",
                           "statement", "tool"}),
    "gaussian-sum": frozenset({"actual", "claim", "claimed", "claimed_pair", "clip", "design",
                               "epsilon", "kind", "mechanism", "n", "populations", "quantity",
                               "sigma", "tool"}),
}
CLAIMED_FIELDS: dict[str, tuple[frozenset[str], ...]] = {
    "sampling": (frozenset({"derived_by", "expression", "params", "srepr", "t_prime_expression",
                            "t_prime_srepr", "value"}),),
    "pinq-plan": (frozenset({"source", "value"}),
                  frozenset({"expression", "params", "source", "srepr", "value"})),
    "group-profile": (frozenset({"value"}),),
    "instance": (frozenset({"value"}),),
    "gaussian-sum": (frozenset({"value", "bracket"}),),
}
# the shape of each kind (types, ranges, lengths), checked before any computation
SCHEMAS: dict[str, Any] = {
    "sampling": sampling.SCHEMA, "pinq-plan": pinq.SCHEMA, "group-profile": group.SCHEMA,
    "gaussian-sum": gaussian_sum.SCHEMA, "instance": instance_witness.SCHEMA,
    regress_witness.KIND: regress_witness.SCHEMA,
}


def _check_fields(kind: str, obj: dict[str, Any]) -> None:
    if kind not in FIELDS:
        return  # a kind another module owns checks its own fields
    have = set(obj) - {"found_at"}
    if kind == "sampling":
        have.discard("kind")
    missing, extra = sorted(FIELDS[kind] - have), sorted(have - FIELDS[kind])
    if missing or extra:
        raise ValueError("not a verifydp " + kind + " witness: "
                         + "; ".join(x for x in (missing and f"missing {', '.join(missing)}",
                                                 extra and f"unexpected {', '.join(extra)}")
                                     if x))
    claimed = obj["claimed"]
    if not isinstance(claimed, dict) or frozenset(claimed) not in CLAIMED_FIELDS[kind]:
        raise ValueError(f"not a verifydp {kind} witness: unexpected fields in 'claimed'")


# witnesses whose bound is not a catalogued statement: a peer library's documented behaviour
# (regress/peers.py) and an audit's target (audit/core.py). They are judged against the bound
# they store, and replay says so.
UNBOUND_PREFIXES = ("peer/", "audit/")
# the peer-library claims verifydp.regress.peers writes witnesses for (kept in step with it by
# tests/witness/test_tamper.py)
AUTODP_WR_CLAIM = "peer/autodp:subsample_epsdelta:wr"
PEER_CLAIMS = frozenset({AUTODP_WR_CLAIM})

# kinds whose claimed bound is stored in the file: replay must tie it to the claim
BOUND_KINDS = ("sampling", "pinq-plan", "group-profile")


def binding_key(obj: dict[str, Any]) -> str:
    """What ties a witness to its claim: the instance of the statement it is about (datasets,
    designs, mechanism class, search point inputs) and the bound printed for it (formula,
    parameters, claimed value). The mechanism and the probabilities are not part of it:
    replay recomputes those."""
    kind = obj.get("kind", "sampling")
    c = obj.get("claimed", {})
    actual = obj.get("actual", {}).get("value")  # shown: it must be the checker's own
    if kind == "sampling":
        key: Any = [obj.get("quantity"), _name_free(obj.get("populations")), obj.get("design"),
                    obj.get("design_prime"), obj.get("base_mechanism_class"), c, actual]
    elif kind == "pinq-plan":
        key = [obj.get("quantity"), obj.get("plan"), obj.get("datasets"), obj.get("t"), c,
               actual]
    else:  # group-profile: the claimed δ' at this design, class and t'
        key = [obj.get("design"), obj.get("n"), obj.get("m"), obj.get("class"),
               obj.get("t_prime"), c.get("value")]
    return json.dumps([kind, key], sort_keys=True, default=str)


def _name_free(pops: Any) -> Any:
    """A population pair up to the names of its records (issue 28: renaming record x to zz
    in every place is the same witness): per record, its counts in P and P' and its stratum
    and cluster, sorted."""
    if not isinstance(pops, dict):
        return pops
    rows: dict[str, list[Any]] = {}
    for side, i in (("P", 0), ("P_prime", 1)):
        for e in pops.get(side) or ():
            if not isinstance(e, dict):
                return pops
            row = rows.setdefault(str(e.get("value")), [0, 0, e.get("stratum"), e.get("cluster")])
            row[i] += e.get("count", 1) if isinstance(e.get("count", 1), int) else 0
    return [pops.get("relation"), sorted(rows.values(), key=lambda r: json.dumps(r))]


@functools.lru_cache(maxsize=128)
def _checker_keys(claim_id: str) -> tuple[bool, frozenset[str]]:
    res = get_claim(claim_id).check(Budget(None, fail_fast=False))
    witnesses = [res.witness, *(i.witness for i in res.instances)]
    keys = frozenset(binding_key(w.to_json()) for w in witnesses
                     if w is not None and w.to_json().get("kind", "sampling") in BOUND_KINDS)
    return res.verdict is Verdict.REFUTED, keys


def _param_problem(obj: dict[str, Any]) -> str | None:
    """Parameters a sampling witness stores that its own datasets and designs determine."""
    params = obj["claimed"]["params"]
    pops = obj["populations"]
    sizes = [sum(int(e.get("count", 1)) for e in pops[s]) for s in ("P", "P_prime")]
    design_m = [d.get("m") for d in (obj["design"], obj.get("design_prime") or obj["design"])]
    expected = {"P_size": sizes[0], "P_prime_size": sizes[1], "m": design_m[0],
                "m_prime": design_m[1]}
    for name, want in expected.items():
        if name in params and want is not None and str(params[name]) != str(want):
            return (f"the stored parameter {name} = {params[name]} is not the witness's own "
                    f"({want})")
    return None


def _audit_target_text(obj: dict[str, Any]) -> str | None:
    """The words `audit.core` writes for a target, from the stored target itself."""
    c = obj["claimed"]
    try:
        if obj.get("quantity") == "ratio":
            return f"target e^ε' = e^{float(sympy.log(parse_srepr(c['srepr']))):g}"
        if obj.get("quantity") == "hockey" and c.get("t_prime_srepr"):
            d = Fraction(str(sympy.Rational(parse_srepr(c["srepr"]))))
            return (f"target δ' = {d} at ε' = "
                    f"{float(sympy.log(parse_srepr(c['t_prime_srepr']))):g}")
    except (TypeError, ValueError):
        return None
    return None


def bound_to_claim(obj: dict[str, Any]) -> str | None:
    """Why a witness that re-verifies is not evidence against the claim it names, or None.

    Replay recomputes everything from the file, but the bound it is judged against (a printed
    formula, or a claimed δ') is stored in the file too: a witness relabelled with another
    claim's id, or with an edited formula, would otherwise confirm a violation of a bound
    nobody printed.  So the bound must be one the claim's own certified checker produces
    (the claim is re-checked from scratch, once per process) and the parameters the witness
    determines must be its own."""
    claim_id = obj["claim"]
    if claim_id.startswith("peer/"):
        if claim_id not in PEER_CLAIMS:
            return f"{claim_id!r} is not a known peer-library claim"
        return _peer_problem(obj)
    if claim_id.startswith("audit/"):
        # an audit's target is a number (e^ε', or δ' at e^ε'), never a formula in parameters
        c = obj.get("claimed", {})
        if c.get("params") or any(parse_srepr(c[k]).free_symbols
                                  for k in ("srepr", "t_prime_srepr") if c.get(k)):
            return "an audit witness's target is a number, not a formula"
        if c.get("value") != _audit_target_text(obj):
            return "the target shown is not the stored target (edited)"
        return None
    if claim_id not in catalogue():
        return f"{claim_id!r} is not a claim in the catalogue"
    if obj.get("kind", "sampling") == "sampling":
        problem = _param_problem(obj)
        if problem:
            return problem
    if "found_at" in obj:  # a search's witness: the claim's checker at that search point
        space = get_claim(claim_id).space
        if space is None:
            return f"{claim_id} has no search space, so no search found this witness"
        res = space.evaluate(decode_point(obj["found_at"]))
        if res.verdict is not Verdict.REFUTED or res.witness is None:
            return f"the claim's checker does not refute {claim_id} at the stored search point"
        if binding_key(res.witness.to_json()) != binding_key(obj):
            return (f"the bound in the file is not the one the checker of {claim_id} produces "
                    "at the stored search point (a witness of another claim, or edited)")
        return None
    refuted, keys = _checker_keys(claim_id)
    if not refuted:
        return f"the claim's checker does not refute {claim_id} (is the claim id right?)"
    if binding_key(obj) not in keys:
        return (f"the bound in the file is not one the checker of {claim_id} produces "
                "(a witness of another claim, or an edited formula)")
    return None


def autodp_wr_witness(n: int = 3, m: int = 2, t: Fraction = Fraction(2)) -> sampling.Witness:
    """A replayable witness that autodp's subsample_epsdelta is unsound for sampling with
    replacement: SRSWR(m of n), replacement neighbours, base mechanism log(t)-DP; autodp's
    e^{ε'} = 1 + prob·(e^ε − 1) with prob = m/n (pinned here: replay derives the claimed bound
    from it, never from the file), against the exact worst case (the engine)."""
    pair = replace_pair(n)
    u = pair.universe
    design = SRSWR(m)
    wc = worst_case_ratio(design.sample_law(pair.p, u), design.sample_law(pair.q, u),
                          MechanismClass.pure(Relation.REPLACE, t))
    worst = wc.worst
    if worst.witness is None or worst.lower is None:
        raise ValueError("no mechanism separates the pair")
    claimed = 1 + sympy.Symbol("prob") * (sympy.exp(EPS) - 1)
    value = 1 + Fraction(m, n) * (t - 1)
    return sampling.Witness(
        AUTODP_WR_CLAIM, pair, design, None, Relation.REPLACE, EpsSpec.of_t(t), Fraction(0),
        "ratio", "forward" if worst is wc.forward else "backward", worst.witness, claimed, None,
        {"prob": str(Fraction(m, n))},
        f"autodp subsample_epsdelta(ε = log {t}, 0, prob = m/n = {Fraction(m, n)}): "
        f"e^ε' = {value}",
        f"exact worst case over all log({t})-DP base mechanisms: e^ε' = {worst.lower}",
    )


def _peer_problem(obj: dict[str, Any]) -> str | None:
    """A peer witness's bound is the peer's pinned formula at the witness's own design, size
    and ε: the witness must be the one `autodp_wr_witness` writes there (up to record names)."""
    d = obj["design"]
    n = sum(e["count"] for e in obj["populations"]["P"])
    t = obj["base_mechanism_class"]["epsilon"].get("t")
    if d.get("kind") != "srswr" or set(d) != {"kind", "m"} or t is None or not 1 <= n <= 64 \
            or not isinstance(d["m"], int) or not 0 <= d["m"] <= 8:
        return "not a with-replacement design (srswr, n ≤ 64, m ≤ 8, e^ε given as t)"
    try:
        own = autodp_wr_witness(n, d["m"], exact(t)).to_json()
    except ValueError as exc:
        return str(exc)
    if binding_key(own) != binding_key(obj):
        return ("the bound or the instance in the file is not autodp's formula at the witness's "
                "own design and ε (edited)")
    return None


WITNESS_SUFFIXES = (".json",)


def replay(path: Path | str, bind: bool = True) -> ReplayReport:
    """Re-verify a stored witness from scratch (`bind`: see `replay_object`)."""
    path = Path(path)
    try:
        try:
            raw = read_bounded(path, LIMITS["file bytes"])
        except NotRegular:
            raise WitnessLimitError(f"{path} is not a regular file") from None
        except TooLarge:
            raise WitnessLimitError(f"{path} exceeds the limit of {LIMITS['file bytes']} file "
                                    "bytes for a witness") from None
    except OSError as exc:
        raise WitnessFormatError(f"cannot read witness {path}: {exc.strerror or exc}") from exc
    except WitnessLimitError as exc:
        raise WitnessFormatError(str(exc)) from exc
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        hint = (" (the CSV and .md files describe a witness; replay its .json)"
                if path.suffix in (".csv", ".md") else "")
        raise WitnessFormatError(f"{path} is not a witness: not a JSON file{hint}") from exc
    try:
        return replay_object(obj, bind)
    except WitnessLimitError as exc:
        raise WitnessFormatError(f"{path}: {exc}") from exc
    except UnknownClaim as exc:
        raise WitnessFormatError(f"malformed witness {path}: unknown claim {exc}") from exc
    except (KeyError, IndexError) as exc:
        raise WitnessFormatError(f"malformed witness {path}: missing field {exc}") from exc
    except (TypeError, ValueError, ArithmeticError, AttributeError, RecursionError,
            AssertionError) as exc:
        raise WitnessFormatError(f"malformed witness {path}: {_one_line(exc)}") from exc


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 200 else text[:200] + " …"


# ---------------------------------------------------------------- writing witnesses


def claim_about(claim_id: str) -> ClaimAbout | None:
    """The catalogue's words for a claim (for witness companions)."""
    c = catalogue().get(claim_id)
    return None if c is None else ClaimAbout(c.id, c.paper, c.where, c.summary, c.printed)


def write_witness(w: Any, directory: Path) -> Path:
    """Write a witness's JSON, per-dataset CSVs and `.md` companion (with the claim's printed
    text from the catalogue); returns the JSON's path."""
    return base_write(w, directory, claim_about(w.claim))


@contextlib.contextmanager
def locked(directory: Path) -> Iterator[None]:
    """Hold an exclusive lock on a witness directory, so that concurrent runs (two `hunt`s,
    a `check` beside a `hunt`, pool workers) compare-and-write a claim's files one at a time
    and never interleave one witness's JSON with another's companions."""
    directory.mkdir(parents=True, exist_ok=True)
    with open(directory / ".lock", "a+") as fh:
        if fcntl is not None:
            fcntl.flock(fh.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            if fcntl is not None:
                fcntl.flock(fh.fileno(), fcntl.LOCK_UN)


def offer_witness(witness: Any, directory: Path) -> tuple[Path, int, bool]:
    """Write `witness` unless a witness for the same claim that is at least as good is
    already there (`witness_order`: fewer records, then shorter numbers). Returns (path,
    size of the witness now on disk, whether this one was written)."""
    obj = witness.to_json()
    path = directory / f"{witness_stem(witness.claim)}.json"
    with locked(directory):
        if path.exists():
            try:
                old_obj = json.loads(path.read_text(encoding="utf-8"))
                old = witness_order(old_obj)
                old_instance = old_obj.get("kind") == "instance"
            except (OSError, ValueError, KeyError, TypeError, AttributeError):
                old, old_instance = (10**9, 0, ""), True
            # a dataset witness is never replaced by an instance witness; an instance
            # witness is the checker's current first refuted instance, so the newest is kept
            if obj.get("kind") == "instance":
                if not old_instance:
                    return path, old[0], False
            elif not old_instance and old <= witness_order(obj):
                return path, old[0], False
        return write_witness(witness, directory), witness_size(obj), True


def regenerate(directory: Path) -> list[Path]:
    """Rewrite the CSVs and `.md` companions of every witness JSON in `directory` from the
    JSON (the JSON itself is left as it is)."""
    done = []
    with locked(directory):
        for f in sorted(directory.glob("*.json")):
            obj = json.loads(f.read_text(encoding="utf-8"))
            if obj.get("kind", "sampling") not in KNOWN_KINDS:
                continue  # its owner writes its companion
            for name, text in witness_files(obj, f.stem, claim_about(obj["claim"])).items():
                if name != f.name:
                    atomic_write(directory / name, text)
            (directory / f"{f.stem}.csv").unlink(missing_ok=True)
            done.append(f)
    return done


def write_index(directory: Path) -> Path | None:
    """Regenerate the index of a witness directory from the JSON files in it: `README.md`,
    unless a README.md is there that verifydp did not write (`--witness-dir .` in a project
    once replaced its README, issue 28); then `INDEX_NAME`, under the same rule. Returns the
    path written, or None when both names hold other files (nothing is overwritten)."""
    cat = catalogue()
    rows = []
    for f in sorted(directory.glob("*.json")):
        try:
            obj = json.loads(f.read_text(encoding="utf-8"))
            claim = cat.get(obj["claim"])
            size = "—" if obj.get("kind") == "instance" else witness_size(obj)
            rows.append(
                f"| `{obj['claim']}` | {claim.summary if claim else ''} | [{f.name}]({f.name}) | "
                f"{size} | {obj['quantity']} | "
                f"{obj['claimed']['value']} | {obj['actual']['value']} |"
            )
        except (OSError, KeyError, TypeError, ValueError):
            continue
    text = "\n".join([
        "# Counterexamples",
        "",
        "Generated from the witness files by `verifydp check` / `verifydp hunt`; every file",
        "replays with `verifydp replay FILE`, which recomputes everything from the datasets,",
        "design and mechanism it stores (tests/test_cli.py replays them all). The hunt only",
        "ever replaces a witness by a smaller one. Records: |P| + |P'|; '—' marks an",
        "instance witness (a parameter point or table cell, no dataset), which replays by",
        "re-running the claim's certified check and finding the same instance refuted.",
        "",
        "| claim | what is claimed | witness | records | quantity | claimed | certified actual |",
        "|---|---|---|---|---|---|---|",
        *rows,
        "",
        INDEX_MARKER,
        "",
    ])
    for name in ("README.md", INDEX_NAME):
        path = directory / name
        if _ours_or_absent(path):
            atomic_write(path, text)
            return path
    return None


# the last line of every index verifydp writes; an index without it is recognised by its
# generated header (indexes written before the marker existed)
INDEX_MARKER = "<!-- written by verifydp: regenerated from the witness files, do not edit -->"
INDEX_NAME = "verifydp-index.md"
_OLD_HEADER = "# Counterexamples\n\nGenerated from the witness files by `verifydp check`"


def _ours_or_absent(path: Path) -> bool:
    """Whether `path` may be (re)written as the index: absent, or an index verifydp wrote.
    Anything else there (a directory, a link, someone's README) is left alone."""
    if not path.exists() and not path.is_symlink():
        return True
    if path.is_symlink() or not path.is_file():
        return False
    try:
        with path.open("rb") as fh:
            head = fh.read(LIMITS["file bytes"]).decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return INDEX_MARKER in head or head.startswith(_OLD_HEADER)


