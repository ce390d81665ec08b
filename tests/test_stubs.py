"""The type stubs (tensorlib/*.pyi) against the built module.

* every function and method of the extension has a __text_signature__
  (inspect.signature works, so help() and stubtest see the parameters);
* .ci/stubtest.sh (mypy.stubtest with the short allowlist) passes: the
  stubs have not drifted from the module;
* mypy accepts a small user script written against the stubs, and rejects
  a wrong one (so the stubs are really used, not silently Any).

The mypy parts skip when mypy is not installed, unless
TENSORLIB_REQUIRE_STUBTEST=1 (then they fail).
"""
import importlib.util
import inspect
import os
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import tensorlib
from tensorlib import _C

ROOT = Path(__file__).resolve().parent.parent
PKG = Path(tensorlib.__file__).resolve().parent

# Builtins that take no text signature by design: none at present.  (A
# C function without "name(args)\n--\n\n" in its docstring has no
# __text_signature__ and inspect.signature raises ValueError.)
NO_SIGNATURE = frozenset()


def _need_mypy():
    if importlib.util.find_spec("mypy") is None:
        if os.environ.get("TENSORLIB_REQUIRE_STUBTEST") == "1":
            pytest.fail("mypy is not installed but "
                        "TENSORLIB_REQUIRE_STUBTEST=1")
        pytest.skip("mypy is not installed (pip install -e '.[test]')")


def _c_callables():
    """(qualified name, object) of every C function and method."""
    out = []
    for name in sorted(dir(_C)):
        obj = getattr(_C, name)
        if isinstance(obj, types.BuiltinFunctionType):
            out.append((name, obj))
        elif isinstance(obj, type) and obj.__module__ == "tensorlib":
            for attr, v in sorted(vars(obj).items()):
                if isinstance(v, (types.MethodDescriptorType,
                                  types.ClassMethodDescriptorType)):
                    out.append(("{}.{}".format(name, attr), v))
    out += [("_testing." + n, getattr(_C._testing, n))
            for n in sorted(dir(_C._testing))
            if isinstance(getattr(_C._testing, n), types.BuiltinFunctionType)]
    return out


@pytest.mark.parametrize("name,obj", _c_callables(),
                         ids=[n for n, _ in _c_callables()])
def test_c_callable_has_text_signature(name, obj):
    if name in NO_SIGNATURE:
        pytest.skip("no signature by design")
    try:
        sig = inspect.signature(obj)
    except ValueError as e:
        pytest.fail("{} has no usable __text_signature__ (its docstring must "
                    "start with 'name(args)\\n--\\n\\n'): {}".format(name, e))
    # A method's signature must not repeat self (the $self marker does it).
    if "." in name and not name.startswith("_testing."):
        assert "self" not in list(sig.parameters)[:1] or \
            obj.__text_signature__.startswith("($self"), name


def test_types_carry_signatures():
    # The constructors that can be called show their parameters.
    assert str(inspect.signature(tensorlib.device)) == "(type, index=None)"
    assert "sizes" in str(inspect.signature(tensorlib.Size))
    assert str(inspect.signature(tensorlib.ExecutionPlan)) == "()"


def test_stub_files_ship():
    for f in ("__init__.pyi", "_C.pyi", "memory.pyi", "cuda.pyi", "py.typed"):
        assert (PKG / f).is_file(), "tensorlib/{} is not beside the module " \
            "({})".format(f, PKG)
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert '"py.typed"' in pyproject and '"*.pyi"' in pyproject


# The mypy runs take seconds and check no memory behaviour: "slow" keeps
# them out of the sanitizer run.
@pytest.mark.slow
def test_stubtest():
    _need_mypy()
    script = ROOT / ".ci" / "stubtest.sh"
    env = dict(os.environ, PYTHON=sys.executable)
    r = subprocess.run(["bash", str(script)], capture_output=True, text=True,
                       env=env, timeout=600)
    assert r.returncode == 0, "stubtest found drift:\n" + r.stdout + r.stderr


SAMPLE_OK = '''
from typing import Any
import numpy as np
import tensorlib as tl
from tensorlib import Tensor, Size

a: Tensor = tl.zeros(2, 3)
b = tl.ones((2, 3), dtype=tl.float64)
c = tl.arange(6.0).reshape(2, 3)
d = tl.tensor([[1, 2, 3], [4, 5, 6]], dtype="int64")
e = tl.full((2, 3), 1.5, memory_kind=tl.MemoryKind.Persistent)
f = tl.empty_like(a, dtype=tl.int32)
s: Size = a.shape
n: int = s[0] + a.size(1) + a.numel() + a.ndim
st: tuple[int, ...] = a.stride()

x: Tensor = (a + 1) * b - c / 2 + 3 ** c
x += 1
y: Tensor = x.view(3, 2).transpose(0, 1).contiguous()
y = x.view((6,)).unsqueeze(0).expand(4, 6).flip(0)
z: Tensor = tl.where(a > 0, a, -a).clamp(min=0.0).sum(dim=1, keepdim=True)
mask: Tensor = (a == b) & (a != c)
vals, idx = c.max(dim=0)
m: Tensor = c.max()
parts: tuple[Tensor, ...] = c.split(1) + c.chunk(3, dim=1) + c.unbind()
w: Tensor = c[0, 1:] + c[..., None, ::2].squeeze() + c[tl.tensor([0, 1])]
c[0] = 7
c[:, 1] = tl.zeros(2)
arr: np.ndarray[Any, Any] = c.numpy()
back: Tensor = tl.from_numpy(np.zeros((2, 2))) + tl.asarray(arr)
v: int | float | complex = c[0, 0].item()
dt: tl.dtype = tl.promote_types(tl.int32, tl.float)
dev: tl.device = c.device
ok: bool = c.is_contiguous() and tl.shares_memory(c, c[0])
with tl.workspace(1 << 16) as ws:
    t2: Tensor = ws.empty(4, 4, dtype=tl.float32)
stats: dict[str, int] = tl.memory.memory_stats()
report: str = tl.memory_summary()
caps = c.__dlpack__()
t3: Tensor = c.to(tl.float16).to("cpu").to(c)
c[1] = [1.0, 2.0, 3.0]
t4: Tensor = tl.from_dlpack(np.zeros(3))
t4 = t4 + tl.frombuffer(bytearray(8), dtype=tl.uint8)
t5: Tensor = tl.full(3, 1.0, dtype=float) + tl.zeros(2, dtype=np.float32)
info: str = tl.explain(c) + tl.explain_reshape(c, (3, 2))
info += str(tl.memory_report())
st2: tl.cuda.Stream | None = None
t6: Tensor = tl.add(c, c, alpha=2) - c.sub(1, alpha=0.5)
alloc: str = tl.memory.allocator_for("cpu", tl.MemoryKind.Workspace)
locked: bool = tl.memory.pinned_info()["last_locked"]
gpu: bool = tl.cuda.is_available() and tl.cuda.device_count() > 0
plan = tl.ExecutionPlan()
plan.add_buffer("x", (4, 4), dtype=tl.float32)
bufs: dict[str, Tensor] = plan.prepare()
'''

SAMPLE_BAD = '''
import tensorlib as tl
t = tl.zeros(2, 3)
n: str = t.numel()
t.view(2, "3")
tl.transpose(t, 0)
t.sum(dim="rows")
tl.mul(t, t, alpha=2)
t.no_such_method()
'''


def _run_mypy(tmp_path, source):
    path = tmp_path / "sample.py"
    path.write_text(textwrap.dedent(source))
    env = dict(os.environ, MYPYPATH=str(PKG.parent))
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental",
         "--cache-dir", os.devnull, "--python-version",
         "{}.{}".format(*sys.version_info[:2]), str(path)],
        capture_output=True, text=True, cwd=str(tmp_path), env=env,
        timeout=600)


@pytest.mark.slow
def test_mypy_accepts_user_code(tmp_path):
    _need_mypy()
    r = _run_mypy(tmp_path, SAMPLE_OK)
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.slow
def test_mypy_rejects_wrong_code(tmp_path):
    _need_mypy()
    r = _run_mypy(tmp_path, SAMPLE_BAD)
    assert r.returncode == 1, r.stdout + r.stderr
    out = r.stdout
    assert 'Incompatible types in assignment (expression has type "int", ' \
        'variable has type "str")' in out, out
    assert "no_such_method" in out, out
    assert "view" in out, out
    assert '"transpose"' in out, out
    assert '"sum" of "Tensor"' in out, out
    assert '"mul"' in out, out  # alpha is for add and sub only
