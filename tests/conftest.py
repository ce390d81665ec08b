"""Shared pytest set-up: hypothesis profiles, the torch requirement in CI,
and helpers every suite uses."""
import gc
import os
import sys

import pytest

try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "default", max_examples=60, deadline=None,
        suppress_health_check=[HealthCheck.too_slow])
    # CI's: the same examples on every run (derandomize), so that a red
    # CI is reproducible and never a draw of luck; the default and soak
    # profiles keep exploring new examples on every run.
    settings.register_profile(
        "ci", max_examples=60, deadline=None, derandomize=True,
        suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile(
        "sanitizer", max_examples=10, deadline=None, derandomize=True,
        suppress_health_check=[HealthCheck.too_slow])
    # A long bug hunt by hand, e.g. over the fuzz suites:
    # TENSORLIB_HYPOTHESIS_PROFILE=soak pytest tests/test_fuzz_*.py
    settings.register_profile(
        "soak", max_examples=1500, deadline=None,
        suppress_health_check=[HealthCheck.too_slow,
                               HealthCheck.filter_too_much])
    settings.load_profile(os.environ.get("TENSORLIB_HYPOTHESIS_PROFILE",
                                         "default"))
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    pass

_torch_ran = {"passed": 0}


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "shard_whole: the module's tests all run in one shard "
        "of a split run (TENSORLIB_SHARD): it has an expensive "
        "module-scoped fixture")
    # Import tensorlib before any test module runs: the build that the
    # environment selects (PYTHONPATH: the sanitizer or coverage build) is
    # then the one every test gets, even a test whose helpers put the
    # source tree first on sys.path (benchmarks/accuracy.py), where the
    # editable install's finder would load the in-place _C instead.
    import tensorlib

    # The sanitizer phase of CI must test the sanitizer build, not the
    # editable install next to the sources.
    if os.environ.get("TENSORLIB_EXPECT_SANITIZER"):
        assert tensorlib._C._testing.sanitizer_build(), (
            "expected the sanitizer build of tensorlib, imported "
            + tensorlib.__file__)
    # tools/coverage.sh: the package and its _C from this directory.
    where = os.environ.get("TENSORLIB_EXPECT_ROOT")
    if where:
        where = os.path.realpath(where) + os.sep
        for f in (tensorlib.__file__, tensorlib._C.__file__):
            assert os.path.realpath(f).startswith(where), (
                "expected tensorlib from " + where + ", imported " + f)


def _shard():
    """TENSORLIB_SHARD="i/n" (tools/pytest_shards.sh): this process runs
    the collected tests whose index is i modulo n, so that n processes
    split one run between them with no test run twice or left out."""
    spec = os.environ.get("TENSORLIB_SHARD")
    if not spec:
        return None
    try:
        i, n = (int(x) for x in spec.split("/"))
    except ValueError:
        i, n = -1, 0
    if not 0 <= i < n:
        raise pytest.UsageError(
            f"TENSORLIB_SHARD={spec!r}: expected i/n with 0 <= i < n")
    return i, n


def pytest_collection_modifyitems(config, items):
    for item in items:
        if "torch" in item.fixturenames:
            item.add_marker(pytest.mark.torch)
    shard = _shard()
    if shard is not None:
        # Interleaved, not in blocks: every file's tests (and a slow
        # file's parameters) spread over all the shards, which keeps them
        # even without a table of durations.  A module marked shard_whole
        # counts as one test: its module-scoped fixture would otherwise be
        # built once in every shard (test_accuracy.py's takes 114 s under
        # ASan).
        i, n = shard
        units, last = [], None
        for t in items:
            whole = t.get_closest_marker("shard_whole") is not None
            key = t.module.__name__ if whole else None
            if key is None or key != last:
                units.append([])
            units[-1].append(t)
            last = key
        keep = [t for k, u in enumerate(units) if k % n == i for t in u]
        kept = set(map(id, keep))
        config.hook.pytest_deselected(
            items=[t for t in items if id(t) not in kept])
        items[:] = keep


@pytest.fixture(scope="session")
def torch():
    """The torch module, or a skip when it is not installed (CI requires
    it: TENSORLIB_REQUIRE_TORCH=1 turns the skip into a failure)."""
    try:
        import torch as _torch
    except ImportError:
        if os.environ.get("TENSORLIB_REQUIRE_TORCH"):
            pytest.fail("torch is required (TENSORLIB_REQUIRE_TORCH=1) but "
                        "not installed")
        pytest.skip("torch is not installed")
    return _torch


# Note [Frozen imports]
# ~~~~~~~~~~~~~~~~~~~~~
# The leak and memory tests call gc.collect() before they read the
# allocator's statistics, some hundreds of times a run, and a full
# collection walks every object the process holds: the modules imported
# so far, torch's 140,000 objects among them once a comparison test has
# imported it (0.3 s a collection then, more under ASan).  Those objects
# live as long as the process, so after the collection, and after every
# test that imported a module, the survivors of one last collection are
# frozen (gc.freeze(): the collector no longer walks them; reference
# counting still frees them).  A test's own garbage is collected as
# before.  tests/test_memory.py and test_bundles.py spent 32 of their
# 42 s in the collector, 1 s with this.
_frozen = {"modules": 0}


def _freeze_imports():
    if len(sys.modules) != _frozen["modules"]:
        gc.collect()
        gc.freeze()
        _frozen["modules"] = len(sys.modules)


def pytest_collection_finish(session):
    _freeze_imports()


@pytest.hookimpl(trylast=True)
def pytest_runtest_teardown(item, nextitem):
    _freeze_imports()


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed and "torch" in report.keywords:
        _torch_ran["passed"] += 1


def pytest_sessionfinish(session, exitstatus):
    if (os.environ.get("TENSORLIB_REQUIRE_TORCH") and exitstatus == 0
            and _torch_ran["passed"] == 0):
        print("\nTENSORLIB_REQUIRE_TORCH=1 but no torch comparison test ran")
        session.exitstatus = 1
