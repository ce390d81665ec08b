"""The operator table (csrc/include/tensorlib/op_table.h) against what it
generates: the Python functions and Tensor methods (names, in-place forms,
__text_signature__, docstrings), the type stubs (tools/gen_op_stubs.py
--check), the CPU kernel table (loops for exactly the compute dtypes of
each op's set) and the refusals that follow from the set.  A row whose
binding, stub or kernels drift from the table fails here."""
import os
import subprocess
import sys

import pytest

import tensorlib as tl
from tensorlib import _C

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ROWS = _C._op_table()
OPS = [r for r in ROWS if r["kind"] != "alias"]
ALIASES = [r for r in ROWS if r["kind"] == "alias"]
BOUND = [r for r in OPS if "custom_py" not in r["flags"]]
BY_PY = {r["py"]: r for r in OPS}


def _ids(rows):
    return [r["kind"] + ":" + r["py"] for r in rows]


def test_table_shape():
    names = [r["name"] for r in OPS]
    assert len(set(zip((r["kind"] for r in OPS), names))) == len(OPS)
    for kind in ("unary", "binary"):
        ids = [r["id"] for r in OPS if r["kind"] == kind]
        assert ids == list(range(len(ids)))  # enum order is table order
    for r in OPS:
        assert r["doc"] and r["doc"].endswith("."), r
        assert r["result"] in ("same", "float", "bool", "logical", "real",
                               "double")
        assert r["set"], r


def _sig(r, method, inplace=False, alpha=None):
    alpha = "alpha" in r["flags"] if alpha is None else alpha
    if r["kind"] == "binary":
        head = "($self, other" if method else "(input, other"
        if inplace:
            return head + (", *, alpha=None)" if alpha else ")")
        return head + (", *, alpha=None, out=None)" if alpha
                       else ", *, out=None)")
    if inplace:
        return "($self)"
    return "($self, *, out=None)" if method else "(input, *, out=None)"


@pytest.mark.parametrize("r", BOUND, ids=_ids(BOUND))
def test_bindings_follow_the_table(r):
    py = r["py"]
    fn = getattr(_C, py)
    assert getattr(tl, py) is fn
    assert fn.__text_signature__ == _sig(r, False)
    assert fn.__doc__ == r["doc"]
    m = getattr(tl.Tensor, py)
    assert m.__text_signature__ == _sig(r, True)
    assert m.__doc__ == r["doc"]
    has_ip = hasattr(tl.Tensor, py + "_")
    assert has_ip == ("inplace" in r["flags"])
    if has_ip:
        ip = getattr(tl.Tensor, py + "_")
        assert ip.__text_signature__ == _sig(r, True, inplace=True)
        assert ip.__doc__ == "In place: " + r["doc"]


@pytest.mark.parametrize("a", ALIASES, ids=[a["py"] for a in ALIASES])
def test_aliases_follow_their_op(a):
    r = BY_PY[a["of"]]
    assert (a["sig"] == "ALPHA") == ("alpha" in r["flags"])
    assert getattr(_C, a["py"]).__text_signature__ == _sig(r, False)
    assert getattr(tl.Tensor, a["py"]).__text_signature__ == _sig(r, True)
    assert not hasattr(tl.Tensor, a["py"] + "_")


def test_alpha_only_where_the_table_says():
    """The drift the table removed: every binary docstring offered alpha=.
    Now only rows with the alpha flag show it, and the others still refuse
    a non-None alpha (and accept alpha=None, as before)."""
    x = tl.tensor([1.0, 2.0])
    for r in BOUND:
        if r["kind"] != "binary":
            continue
        fn = getattr(tl, r["py"])
        assert ("alpha" in fn.__text_signature__) == ("alpha" in r["flags"])
        if "alpha" not in r["flags"]:
            with pytest.raises(TypeError, match="alpha"):
                fn(x, x, alpha=2)


def test_stubs_match_the_table():
    """tools/gen_op_stubs.py --check: the op entries of tensorlib/_C.pyi
    and __init__.pyi are what the table generates."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep +
               os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "tools",
                                                     "gen_op_stubs.py"),
                        "--check"], capture_output=True, text=True,
                       cwd=ROOT, env=env, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr


def test_stub_checker_catches_drift(tmp_path, monkeypatch):
    """The check can fail: a stub line edited away from the table is
    reported."""
    sys.path.insert(0, os.path.join(ROOT, "tools"))
    try:
        import gen_op_stubs as g
    finally:
        sys.path.pop(0)
    c_pyi = tmp_path / "_C.pyi"
    init_pyi = tmp_path / "__init__.pyi"
    text = open(g.C_PYI).read()
    assert "def mul(input: _TensorOrNumber, other: _TensorOrNumber, *, " \
        "out: Tensor | None = None)" in text
    c_pyi.write_text(text.replace(
        "def mul(input: _TensorOrNumber, other: _TensorOrNumber, *, ",
        "def mul(input: _TensorOrNumber, other: _TensorOrNumber, *, "
        "alpha: None = None, "))
    init_pyi.write_text(open(g.INIT_PYI).read())
    monkeypatch.setattr(g, "C_PYI", str(c_pyi))
    monkeypatch.setattr(g, "INIT_PYI", str(init_pyi))
    assert g.main(["--check"]) == 1
    assert g.main([]) == 0  # rewrites the block
    assert g.main(["--check"]) == 0


@pytest.mark.parametrize("r", OPS, ids=_ids(OPS))
def test_cpu_kernels_are_the_set(r):
    """The CPU kernel table has a loop for exactly the compute dtypes of
    the row's set (the CUDA dispatch is expanded from the same set; the
    emulated build's tests/test_cuda.py runs it)."""
    assert r["cpu_kernels"] == r["set"]


_DTYPES = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.int32, tl.int64,
           tl.float16, tl.bfloat16, tl.float32, tl.float64, tl.complex64,
           tl.complex128]


def _compute_dtype(r, dt):
    """The dtype the op computes in for one input dtype, by the row's
    result rule and flags (as csrc/core/ops.c row_types)."""
    name = str(dt).split(".")[-1]
    intlike = name == "bool" or "int" in name
    if r["result"] == "float" and intlike:
        return "float32"
    if r["result"] == "logical":
        return "bool"
    if r["result"] == "double":
        return "complex128" if "complex" in name else "float64"
    if "bool_as_int64" in r["flags"] and name == "bool":
        return "int64"
    if name in ("float16", "bfloat16"):
        return "float32"
    return name


@pytest.mark.parametrize("r", [r for r in OPS if r["kind"] == "unary"
                               and "custom_py" not in r["flags"]],
                         ids=lambda r: r["py"])
def test_unary_refusals_follow_the_set(r):
    """An input whose compute dtype is outside the set is TypeError naming
    the op; every other dtype runs."""
    fn = getattr(tl, r["py"])
    for dt in _DTYPES:
        x = tl.ones(3, dtype=dt)
        comp = _compute_dtype(r, dt)
        name = str(dt).split(".")[-1]
        ok = comp in r["set"] or ("int_identity" in r["flags"] and
                                  name != "bool" and "int" in name)
        if ok:
            fn(x)
        else:
            with pytest.raises(TypeError, match=r["name"]):
                fn(x)


# ---- CUDA (a real device or the emulated build) ---------------------------

CUDA = tl.cuda.is_available()
_ALL = [tl.bool, tl.uint8, tl.int8, tl.int16, tl.uint16, tl.int32,
        tl.uint32, tl.int64, tl.uint64, tl.float16, tl.bfloat16, tl.float32,
        tl.float64, tl.complex64, tl.complex128]
_POSITIVE_DOMAIN = {"sqrt", "rsqrt", "log", "log2", "log10", "log1p"}


def _rand(dtype, seed, positive=False):
    import numpy as np
    rng = np.random.default_rng(seed)
    name = str(dtype).split(".")[-1]
    if name == "bool":
        return tl.tensor(rng.integers(0, 2, (5, 6)).astype(bool))
    if "int" in name:
        lo = 1 if positive else (0 if name.startswith("u") else -9)
        return tl.tensor(rng.integers(lo, 9, (5, 6))).to(dtype)
    lo = 0.1 if positive else -3.0
    a = rng.uniform(lo, 3.0, (5, 6))
    if name.startswith("complex"):
        a = a + 1j * rng.uniform(lo, 3.0, (5, 6))
    return tl.tensor(a).to(dtype)


def _same(got, want):
    import numpy as np
    assert got.device.type == "cuda"
    assert got.dtype == want.dtype
    g, w = got.cpu(), want
    if g.dtype in (tl.float16, tl.bfloat16):
        g, w = g.float(), w.float()
    g, w = g.numpy(), w.numpy()
    if g.dtype.kind in "fc":
        rtol = 1e-12 if g.dtype in (np.float64, np.complex128) else 1e-5
        if want.dtype in (tl.float16, tl.bfloat16):
            rtol = 1e-2
        np.testing.assert_allclose(g, w, rtol=rtol, atol=rtol,
                                   equal_nan=True)
    else:
        np.testing.assert_array_equal(g, w)


@pytest.mark.skipif(not CUDA, reason="no CUDA device (real or emulated)")
@pytest.mark.parametrize("r", OPS, ids=_ids(OPS))
def test_cuda_matches_cpu_for_every_row(r):
    """Every row of the table, on every dtype, on CUDA and on the CPU:
    the same values, or the same refusal.  The op list is the table's, so
    a new row is covered without editing this test."""
    fn = getattr(tl, "round" if r["py"] == "round" else r["py"])
    for i, dt in enumerate(_ALL):
        pos = r["name"] in _POSITIVE_DOMAIN
        args = [_rand(dt, 7 + i, pos)]
        if r["kind"] == "binary":
            nonzero = "zero_div" in r["flags"]
            b = _rand(dt, 100 + i, nonzero)
            if r["name"] in ("lshift", "rshift"):
                b = tl.tensor([[1, 3, 0, 2, 5, 7]]).to(dt)
            elif r["name"] == "pow" and "int" in str(dt):
                b = tl.tensor([[0, 1, 2, 3, 1, 2]]).to(dt)
            args.append(b)
        try:
            want = fn(*args)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                fn(*[a.cuda() for a in args])
            continue
        _same(fn(*[a.cuda() for a in args]), want)


# ---- memory ------------------------------------------------------------------

def _table_round(a, i8, out):
    for r in BOUND:
        fn = getattr(tl, r["py"])
        args = (a, a) if r["kind"] == "binary" else (a,)
        iargs = (i8, i8) if r["kind"] == "binary" else (i8,)
        for xs in (args, iargs):
            try:
                fn(*xs)
            except (TypeError, ZeroDivisionError):
                pass  # a refusal must release what it allocated
        try:
            fn(*args, out=out)
        except TypeError:
            pass
    _C._op_table()


def test_every_row_loops_with_flat_memory():
    """Every row's function, on a float and an int8 operand (success or
    refusal) and with out=, many times: allocator stats, operand
    reference counts and versions stay where they were."""
    import gc
    a = tl.arange(12.0).reshape(3, 4) / 7 + 0.5
    i8 = tl.arange(12, dtype=tl.int8).reshape(3, 4)
    out = tl.empty(3, 4)
    for _ in range(5):
        _table_round(a, i8, out)
    gc.collect()
    refs = [sys.getrefcount(o) for o in (a, i8, out)]
    versions = [t._version for t in (a, i8)]
    stats = tl.memory_stats()
    for _ in range(30):
        _table_round(a, i8, out)
    gc.collect()
    after = tl.memory_stats()
    assert [sys.getrefcount(o) for o in (a, i8, out)] == refs
    assert [t._version for t in (a, i8)] == versions
    assert after["active_bytes"] == stats["active_bytes"]
    assert after["alloc_count"] - stats["alloc_count"] == \
        after["free_count"] - stats["free_count"]


GRAINS = {32768, 8192, 2048, 512, 128}


@pytest.mark.parametrize("r", OPS, ids=_ids(OPS))
def test_every_kernel_has_a_measured_grain(r):
    """Every (op, CPU kernel dtype) has a class in csrc/core/op_grain.h
    (benchmarks/grain.py writes it): a new op, or a new kernel dtype,
    fails here until the script has measured it."""
    assert set(r["grain"]) == set(r["cpu_kernels"]), r["name"]
    bad = {d: g for d, g in r["grain"].items() if g not in GRAINS}
    assert not bad, (r["name"], bad,
                     "rerun python benchmarks/grain.py")


def test_grain_follows_the_cost():
    """The classes order the ops by their cost: a memory-bound op keeps the
    default grain, a transcendental one splits sooner, and float16 takes
    float32's class (it computes in float32)."""
    add, sin = BY_PY["add"]["grain"], BY_PY["sin"]["grain"]
    assert add["float32"] == add["int64"] == 32768
    assert sin["float32"] < add["float32"]
    assert sin["float64"] <= sin["float32"]
    assert sin["complex128"] <= sin["float64"]
    assert _C._op_table() is not ROWS  # a fresh list each call


@pytest.mark.parametrize("name,dt", [("sin", tl.float32), ("exp", tl.float64),
                                     ("erfinv", tl.float32),
                                     ("atan2", tl.float64),
                                     ("asinh", tl.complex64),
                                     ("add", tl.float32)])
def test_results_do_not_depend_on_the_split(name, dt):
    """Around the op's grain (one share, two, odd remainders, a strided
    view), the result on every thread count is the one-thread result,
    bit for bit."""
    r = BY_PY[name]
    g = r["grain"][str(dt).replace("tensorlib.", "")]
    before = tl.get_num_threads()
    try:
        for n in (g - 1, g, g + 1, 2 * g, 2 * g + 3, 5 * g + 7):
            x = (tl.arange(2 * n, dtype=tl.float64) % 97 / 101 + 0.2)
            x = x.to(dt)[::2]
            y = x.flip(0)
            f = getattr(tl, name)
            args = (x,) if r["kind"] == "unary" else (x, y)
            tl.set_num_threads(1)
            want = f(*args).numpy()
            for nt in (2, 3):
                tl.set_num_threads(nt)
                got = f(*args).numpy()
                assert got.tobytes() == want.tobytes(), (name, dt, n, nt)
                out = tl.empty(n, dtype=want.dtype.name if
                               want.dtype.name != "bool" else tl.bool)
                f(*args, out=out)
                assert out.numpy().tobytes() == want.tobytes()
    finally:
        tl.set_num_threads(before)
