"""The package's architecture as a test (docs/architecture.md): imports only point down the
layers, there are no import cycles between modules, and no module imports another module's
private (underscore) names. Every import is counted, including those inside functions."""

from __future__ import annotations

import ast
import functools
from collections import defaultdict
from pathlib import Path

import pytest

PKG = Path(__file__).resolve().parents[2] / "verifydp"

# lowest first; a module may import from its own layer or any layer listed before it
LAYERS: tuple[tuple[str, ...], ...] = (
    ("verifydp", "verifydp.population", "verifydp.exact"),
    ("verifydp.epsilon", "verifydp.designs", "verifydp.mechanisms", "verifydp.accuracy"),
    ("verifydp.worstcase", "verifydp.accounting", "verifydp.pinq", "verifydp.semantics"),
    ("verifydp.witness",),
    ("verifydp.claims",),
    ("verifydp.casebook",),
    ("verifydp.hunt", "verifydp.audit", "verifydp.regress", "verifydp.convert"),
    ("verifydp.cli", "verifydp.pytest_plugin", "verifydp.__main__"),
)


def module_name(path: Path) -> str:
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def layer_of(mod: str) -> int:
    best, best_len = -1, -1
    for i, names in enumerate(LAYERS):
        for n in names:
            if (mod == n or mod.startswith(n + ".")) and len(n) > best_len:
                best, best_len = i, len(n)
    if best < 0:
        raise AssertionError(f"{mod} is in no layer: add it to LAYERS and docs/architecture.md")
    return best


@functools.cache
def imports() -> dict[str, list[tuple[str, tuple[str, ...], int]]]:
    """module → [(imported module, imported names, line)] over the whole package: parsed once
    per process and read by every test here (issue 29: each parsed the package, ~1.3 s)."""
    out: dict[str, list[tuple[str, tuple[str, ...], int]]] = defaultdict(list)
    for path in sorted(PKG.rglob("*.py")):
        mod = module_name(path)
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                if node.module.startswith("verifydp"):
                    names = tuple(a.name for a in node.names)
                    out[mod].append((node.module, names, node.lineno))
            elif isinstance(node, ast.Import):
                for a in node.names:
                    if a.name.startswith("verifydp"):
                        out[mod].append((a.name, (), node.lineno))
    return out


def resolve(target: str, names: tuple[str, ...], known: set[str]) -> list[str]:
    """`from pkg import sub` imports the module pkg.sub; anything else imports `target`."""
    subs = [f"{target}.{n}" for n in names if f"{target}.{n}" in known]
    return subs or [target]


def test_imports_point_down_the_layers() -> None:
    graph = imports()
    known = set(graph) | {module_name(p) for p in PKG.rglob("*.py")}
    bad = []
    for mod, edges in graph.items():
        for target, names, line in edges:
            for t in resolve(target, names, known):
                if layer_of(t) > layer_of(mod):
                    bad.append(f"{mod}:{line} imports {t} (a higher layer)")
    assert not bad, "\n".join(bad)


def test_no_private_names_across_modules() -> None:
    bad = [f"{mod}:{line} imports {n} from {target}"
           for mod, edges in imports().items() for target, names, line in edges
           for n in names if n.startswith("_") and not n.startswith("__") and target != mod]
    assert not bad, "\n".join(bad)


def test_no_import_cycles() -> None:
    graph = imports()
    known = set(graph) | {module_name(p) for p in PKG.rglob("*.py")}
    succ = {m: {t for target, names, _ in e for t in resolve(target, names, known)
                if t in known and t != m and not m.startswith(t + ".")}
            for m, e in graph.items()}
    # a package's __init__ re-exporting its own submodules is not a cycle
    for m in succ:
        succ[m] = {t for t in succ[m] if not t.startswith(m + ".")}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in sorted(succ):
        if v not in index:
            visit(v)
    assert not cycles, "\n".join(" ↔ ".join(c) for c in cycles)


@pytest.mark.parametrize("bad", ["verifydp.cli.main", "verifydp.claims.bun.amplification"])
def test_the_layer_check_catches_an_upward_import(bad: str) -> None:
    assert layer_of(bad) > layer_of("verifydp.exact.interval")
