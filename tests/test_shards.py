"""tools/pytest_shards.sh and the TENSORLIB_SHARD split of conftest.py
(CI runs its sanitizer, emulated-CUDA and coverage suites as one pytest
process per core): every collected test runs in exactly one shard, and a
failure or an empty shard fails the whole run."""
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCRIPT = os.path.join(ROOT, "tools", "pytest_shards.sh")

# Subprocesses that import pytest and tensorlib a few times: not for the
# sanitizer run, which checks memory, not CI's plumbing.
pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(shutil.which("bash") is None,
                                 reason="needs bash")]

SAMPLE = '''
import os
import pytest

@pytest.mark.parametrize("k", range(7))
def test_k(k):
    print("RAN", k)
    assert not (os.environ.get("FAIL_AT") == str(k))
'''


@pytest.fixture
def sample(tmp_path):
    shutil.copy(os.path.join(ROOT, "tests", "conftest.py"), tmp_path)
    (tmp_path / "test_sample.py").write_text(SAMPLE)
    return tmp_path


def run(cmd, cwd, **env):
    # The children import the tensorlib this process runs (the editable
    # install, or CI's coverage build), and none of CI's requirements:
    # the sample has no torch test.
    import tensorlib
    pkg = os.path.dirname(os.path.dirname(os.path.abspath(tensorlib.__file__)))
    e = {k: v for k, v in os.environ.items()
         if k != "TENSORLIB_SHARD" and not k.startswith("TENSORLIB_REQUIRE")}
    e["PYTHONPATH"] = pkg + os.pathsep + os.environ.get("PYTHONPATH", "")
    e.update(env)
    return subprocess.run(cmd, cwd=str(cwd), env=e, capture_output=True,
                          text=True, timeout=300)


def ran(out):
    # pytest -q writes its progress dots on the lines the tests print on.
    return sorted(int(k) for k in re.findall(r"RAN (\d+)", out))


WHOLE = '''
import pytest

pytestmark = pytest.mark.shard_whole

@pytest.mark.parametrize("k", range(7, 11))
def test_w(k):
    print("RAN", k)
'''


def test_shards_partition_the_tests(sample):
    # test_sample.py's 7 tests count 0-6, and test_whole.py's 4 (a
    # shard_whole module) count as one more: shard i of 3 runs the units
    # i, i + 3 and i + 6 of those 8.
    (sample / "test_whole.py").write_text(WHOLE)
    n = 3
    seen = []
    for i in range(n):
        r = run([sys.executable, "-m", "pytest", "-q", "-s",
                 "-p", "no:cacheprovider", "test_sample.py",
                 "test_whole.py"], sample, TENSORLIB_SHARD=f"{i}/{n}")
        got = ran(r.stdout)
        assert r.returncode == 0, r.stdout + r.stderr
        assert "PytestUnknownMarkWarning" not in r.stdout
        assert got == list(range(i, 7, n)) + (
            list(range(7, 11)) if i == 7 % n else [])
        seen += got
    assert sorted(seen) == list(range(11))


@pytest.mark.parametrize("spec", ["2/2", "0/0", "a/b"])
def test_bad_shard_spec_is_a_usage_error(sample, spec):
    r = run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
             "."], sample, TENSORLIB_SHARD=spec)
    assert r.returncode == 4, r.stdout + r.stderr
    assert "TENSORLIB_SHARD" in r.stdout + r.stderr


def test_script_runs_every_shard_and_passes(sample):
    r = run(["bash", SCRIPT, "2", sys.executable, "-m", "pytest", "-q", "-s",
             "-p", "no:cacheprovider", "."], sample)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "--- shard 0/2 (exit 0)" in r.stdout
    assert "--- shard 1/2 (exit 0)" in r.stdout
    assert ran(r.stdout) == list(range(7))


@pytest.mark.parametrize("fail_at", ["0", "5"])
def test_script_fails_when_a_shard_fails(sample, fail_at):
    r = run(["bash", SCRIPT, "2", sys.executable, "-m", "pytest", "-q", "-s",
             "-p", "no:cacheprovider", "."], sample, FAIL_AT=fail_at)
    assert r.returncode == 1, r.stdout + r.stderr
    # Both shards still ran to the end and printed their logs.
    assert ran(r.stdout) == list(range(7))
    bad = int(fail_at) % 2
    assert f"--- shard {bad}/2 (exit 1)" in r.stdout
    assert f"--- shard {1 - bad}/2 (exit 0)" in r.stdout


def test_script_fails_when_a_shard_runs_nothing(sample):
    r = run(["bash", SCRIPT, "8", sys.executable, "-m", "pytest", "-q",
             "-p", "no:cacheprovider", "."], sample)
    assert r.returncode == 5, r.stdout + r.stderr


@pytest.mark.parametrize("args", [[], ["0", "true"], ["x", "true"], ["2"]])
def test_script_refuses_bad_arguments(args):
    r = run(["bash", SCRIPT] + args, ROOT)
    assert r.returncode == 2, r.stdout + r.stderr
