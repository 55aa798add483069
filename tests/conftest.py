"""Hypothesis is derandomised everywhere (CI reproducibility, docs/foundations.md#search);
xdist_group marks group the tests under pytest ≥ 9.2 too (issue 29)."""

import pytest
from hypothesis import settings

settings.register_profile("verifydp", derandomize=True, deadline=None, print_blob=True)
settings.load_profile("verifydp")


@pytest.hookimpl(tryfirst=True, specname="pytest_collection_modifyitems")
def pytest_collection_modifyitems_by_module(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A test without an xdist_group joins its module's (issue 29). Under `--dist loadgroup`
    (pyproject's addopts) a module then runs on one worker, so what its tests compute in
    common — a module-scoped fixture, a helper's cache, the engine's per-process caches —
    is computed once, not once per worker that happens to receive one of its tests (measured
    on tests/claims and tests/regress: a module split over two workers paid up to twice, e.g.
    test_ebadi's full checks). Tests in a named group keep it (groups span modules). Runs
    before xdist's own hook, which turns the marks into node-id suffixes."""
    if not getattr(config.option, "loadgroup", False):  # not an xdist worker under loadgroup
        return
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            module = item.nodeid.split("::", 1)[0].replace("/", ".")
            item.add_marker(pytest.mark.xdist_group(f"module-{module}"))


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Make `--dist loadgroup` (pyproject's addopts) group again under pytest ≥ 9.2.

    pytest-xdist (3.8) marks a test of an xdist_group by appending `@group` to its node id,
    which its scheduler splits on, and does so by assigning `item._nodeid`. From pytest 9.2 a
    node id is the structured `item._id` (`nodeid` is derived from it), so that assignment is
    lost, every group was spread over the workers as with `load`, and each worker computed the
    shared result again (issue 29). The same suffix, set where pytest now reads it."""
    if not getattr(config.option, "loadgroup", False):  # not an xdist worker under loadgroup
        return
    for item in items:
        names = sorted({str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                        for m in item.iter_markers("xdist_group")})
        ident = getattr(item, "_id", None)
        if not names or ident is None or isinstance(ident, str):  # pytest < 9.2: xdist does it
            continue
        suffix = "@" + "_".join(names)
        if not item.nodeid.endswith(suffix):
            item._id = type(ident).parse(item.nodeid + suffix)
