"""Layout pictures (Tensor._repr_html_, tensorlib.explain), reshape
explanations (tensorlib.explain_reshape) and memory reports
(tensorlib.memory_report).

The cells an SVG strip highlights, and their visiting order, are checked
against offsets NumPy computes from the same strides on its own; the
view-or-copy answers against what reshape really does (and torch's reshape
where torch is installed)."""
import random
import time
import xml.etree.ElementTree as ET

import numpy as np
import pytest

import tensorlib as tl
from tensorlib import _display

SVG = "{http://www.w3.org/2000/svg}"


# ---- helpers ----------------------------------------------------------------


def np_offsets(t):
    """The storage offsets t visits in row-major order, from NumPy: a view
    with t's shape and strides over an arange of the storage's cells."""
    ncells = t.untyped_storage().nbytes() // t.element_size()
    cells = np.arange(max(ncells, 1), dtype=np.int64)
    if t.numel() == 0:
        return np.empty(0, dtype=np.int64)
    view = np.lib.stride_tricks.as_strided(
        cells[t.storage_offset():], shape=tuple(t.shape),
        strides=tuple(s * cells.itemsize for s in t.stride()),
        writeable=False)
    return view.ravel().copy()


def parse_html(h):
    # The HTML is well-formed XML: every text escaped, every tag closed.
    return ET.fromstring(h)


def classes(el):
    return el.get("class", "").split()


def svg_cells(root):
    svg = [e for e in root.iter(SVG + "svg") if "tl-storage" in classes(e)]
    assert len(svg) == 1
    return svg[0], [e for e in svg[0].iter(SVG + "rect")
                    if "tl-cell" in classes(e)]


def expected_cells(t, first_cell, ncells_shown):
    """{cell: (first visit, count, visits)} for the cells in the window."""
    offs = np_offsets(t)
    out = {}
    for k, o in enumerate(offs.tolist()):
        if first_cell <= o < first_cell + ncells_shown:
            first, count, visits = out.get(o, (k, 0, []))
            out[o] = (first, count + 1, visits + [k])
    return out


def check_picture(t):
    """The SVG strip of t highlights exactly the cells NumPy says t visits,
    numbered in row-major visiting order, with their visit counts."""
    root = parse_html(t._repr_html_())
    svg, rects = svg_cells(root)
    ncells = t.untyped_storage().nbytes() // t.element_size()
    assert int(svg.get("data-cells")) == ncells
    first_cell = int(svg.get("data-first-cell"))
    assert [int(r.get("data-offset")) for r in rects] == list(
        range(first_cell, first_cell + len(rects)))
    assert len(rects) <= _display.MAX_CELLS
    if ncells <= _display.MAX_CELLS:
        assert len(rects) == ncells  # small storages are drawn whole
    want = expected_cells(t, first_cell, len(rects))
    got = {}
    for r in rects:
        cell = int(r.get("data-offset"))
        if "tl-visited" in classes(r):
            visits = [int(v) for v in r.get("data-visits").split()]
            got[cell] = (int(r.get("data-order")), int(r.get("data-count")),
                         visits)
        else:
            assert r.get("data-order") is None
    assert set(got) == set(want)
    for cell, (first, count, visits) in want.items():
        assert got[cell][0] == first, cell
        assert got[cell][1] == count, cell
        assert got[cell][2] == visits[:_display.MAX_LISTED], cell
    # The order labels drawn in the cells are the first visits.
    labels = sorted(int(e.text) for e in svg.iter(SVG + "text")
                    if "tl-order" in classes(e))
    assert labels == sorted(v[0] for v in want.values())
    return root, want


def facts_of(root):
    table = [e for e in root.iter("table") if "tl-facts" in classes(e)]
    assert len(table) == 1
    return {tr.find("th").text: tr.find("td").text
            for tr in table[0].iter("tr")}


# ---- pictures ---------------------------------------------------------------


def test_contiguous_visits_every_cell_in_order():
    t = tl.arange(12, dtype=tl.float32).reshape(3, 4)
    root, want = check_picture(t)
    assert [want[c][0] for c in range(12)] == list(range(12))
    f = facts_of(root)
    assert f["shape"] == "(3, 4)"
    assert f["strides"] == "(4, 1) elements = (16, 4) bytes"
    assert f["storage offset"] == "0 elements (0 bytes)"
    assert f["contiguous"] == "yes"
    assert "contiguous" in f["layout"]
    assert f["memory kind"] == "Default"
    assert f["device"] == "cpu"
    assert f["storage"] == "48 bytes = 12 x float32"
    assert f["allocator"].startswith("cpu_caching")
    assert f["view"].startswith("yes, of a tensor of shape (12,)")
    assert f["version"] == "0"
    # The values are the tensor's own repr.
    pre = [e for e in root.iter("pre") if "tl-values" in classes(e)]
    assert pre[0].text == repr(t)


def test_sliced():
    base = tl.arange(30, dtype=tl.float64).reshape(5, 6)
    t = base[1:4, ::2]
    _, want = check_picture(t)
    # Row-major: (1,0) (1,2) (1,4) (2,0) ...
    assert sorted(want, key=lambda c: want[c][0]) == [
        6, 8, 10, 12, 14, 16, 18, 20, 22]
    f = facts_of(parse_html(t._repr_html_()))
    assert f["storage offset"] == "6 elements (48 bytes)"
    assert f["contiguous"] == "no"


def test_transposed():
    t = tl.arange(12, dtype=tl.float32).reshape(3, 4).t()
    _, want = check_picture(t)
    assert [want[c][0] for c in range(12)] == [
        0, 3, 6, 9, 1, 4, 7, 10, 2, 5, 8, 11]
    f = facts_of(parse_html(t._repr_html_()))
    assert f["strides"].startswith("(1, 4)")
    assert "non-overlapping and dense" in f["layout"]


def test_flipped_negative_strides():
    base = tl.arange(12, dtype=tl.int32).reshape(3, 4)
    t = base.flip(0)
    assert t.stride()[0] < 0  # a view with a negative stride here
    _, want = check_picture(t)
    assert sorted(want, key=lambda c: want[c][0]) == [
        8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3]
    check_picture(base.flip(0, 1))
    check_picture(base.flip(1)[:, 1:])
    f = facts_of(parse_html(t._repr_html_()))
    assert "negative stride in dim 0" in f["layout"]


def test_expanded_visits_cells_repeatedly():
    t = tl.arange(3, dtype=tl.float32).expand(4, 3)
    root, want = check_picture(t)
    assert want == {0: (0, 4, [0, 3, 6, 9]), 1: (1, 4, [1, 4, 7, 10]),
                    2: (2, 4, [2, 5, 8, 11])}
    svg, _ = svg_cells(root)
    counts = [e.text for e in svg.iter(SVG + "text")
              if "tl-count" in classes(e)]
    assert counts == ["\u00d74"] * 3
    f = facts_of(root)
    assert "broadcast (stride 0) in dim 0" in f["layout"]
    assert "12 visiting 3 distinct storage cells" in f["elements"]
    check_picture(tl.arange(3, dtype=tl.float32).reshape(3, 1).expand(3, 5))


def test_overlapping_and_strided_views():
    a = tl.arange(20, dtype=tl.float32)
    check_picture(a.unfold(0, 4, 3))        # overlapping windows
    check_picture(a.as_strided((3, 3), (5, 2), 1))
    check_picture(a.reshape(4, 5).t()[1:, 1::2])
    check_picture(a.reshape(2, 2, 5).permute(2, 0, 1))
    check_picture(a.reshape(4, 5).diagonal())
    check_picture(a[7])                      # 0-d view, offset 7


def test_large_storage_shows_a_window():
    a = tl.arange(1000, dtype=tl.float32)
    t = a[500:560:3]
    root, want = check_picture(t)
    svg, rects = svg_cells(root)
    # The span the view reaches (cells 500..557), two more either side.
    assert int(svg.get("data-first-cell")) == 498
    assert len(rects) == 62
    more = [e.text for e in svg.iter(SVG + "text") if "tl-more" in classes(e)]
    assert more == ["\u2026 498 cells before", "\u2026 440 cells after"]
    # A span too wide to draw: MAX_CELLS cells from the first visit, in
    # the direction the visits go.
    root, want = check_picture(a[100::2])
    svg, rects = svg_cells(root)
    assert int(svg.get("data-first-cell")) == 98
    assert len(rects) == _display.MAX_CELLS
    assert min(v[0] for v in want.values()) == 0
    root, want = check_picture(a.flip(0)[::7])
    svg, rects = svg_cells(root)
    assert int(svg.get("data-first-cell")) == 1000 - _display.MAX_CELLS
    assert min(v[0] for v in want.values()) == 0


@pytest.mark.parametrize("make", [
    lambda: tl.tensor(3.5),
    lambda: tl.zeros(0),
    lambda: tl.zeros(2, 0, 3),
    lambda: tl.tensor([True, False, True]),
    lambda: tl.tensor([1 + 2j, -3j], dtype=tl.complex64),
    lambda: tl.tensor([[1.5, -2.0]], dtype=tl.float16),
    lambda: tl.tensor([1, 2, 3], dtype=tl.uint8).flip(0),
    lambda: tl.zeros(2, 3, 4, 5).permute(0, 2, 3, 1),
    lambda: tl.zeros(2, 3, dtype=tl.float64, memory_kind="persistent"),
], ids=["0d", "empty", "empty3d", "bool", "complex64", "float16", "uint8",
        "channels_last", "persistent"])
def test_every_kind_of_tensor_renders(make):
    t = make()
    root, _ = check_picture(t)
    f = facts_of(root)
    assert f["shape"] == _display._tuple_str(t.shape)
    text = tl.explain(t)
    assert text.startswith(repr(t))
    for k, v in f.items():
        assert v in text, k


def test_facts_of_special_tensors():
    cl = tl.empty(2, 3, 4, 5).as_strided((2, 3, 4, 5), (60, 1, 15, 3))
    f = facts_of(parse_html(cl._repr_html_()))
    assert "channels_last" in f["layout"]
    f = facts_of(parse_html(tl.zeros(3, memory_kind="persistent")
                            ._repr_html_()))
    assert f["memory kind"] == "Persistent"
    f = facts_of(parse_html(tl.zeros(2)._repr_html_()))
    assert f["view"] == "no: not a view of another tensor"
    f = facts_of(parse_html(tl.zeros(2).pin_memory()._repr_html_()))
    assert f["memory kind"] == "HostPinned (pinned)"
    assert f["allocator"].startswith(  # cuda_pinned in CUDA builds
        tl.memory.allocator_for("cpu", tl.MemoryKind.HostPinned))
    f = facts_of(parse_html(tl.from_numpy(np.zeros(3))._repr_html_()))
    assert "fixed size" in f["storage"]
    assert f["allocator"].startswith("none: memory lent")
    # The owner, not the current routing: a plan's buffers come from the
    # one block the caching allocator made; a workspace tensor has none.
    plan = tl.ExecutionPlan()
    plan.add_buffer("a", (3,), tl.float32)
    f = facts_of(parse_html(plan.prepare()["a"]._repr_html_()))
    assert f["allocator"] == tl.memory.allocator_for("cpu", 0)
    with tl.workspace(4096) as ws:
        f = facts_of(parse_html(ws.zeros(3)._repr_html_()))
    assert f["allocator"] == "none: carved from a workspace arena"
    t = tl.zeros(3)
    t.add_(1)
    f = facts_of(parse_html(t._repr_html_()))
    assert f["version"] == "1"
    f = facts_of(parse_html(tl.tensor(1.0)._repr_html_()))
    assert f["elements"] == "1 visiting 1 distinct storage cell"
    f = facts_of(parse_html(tl.zeros(0)._repr_html_()))
    assert f["elements"].startswith("0")


def test_reset_workspace_tensor_still_renders():
    with tl.workspace(1 << 16):
        w = tl.empty(4, memory_kind="workspace")
    h = w._repr_html_()  # values unreadable, metadata fine
    root = parse_html(h)
    pre = [e for e in root.iter("pre") if "tl-values" in classes(e)][0]
    # The repr says the workspace was reset (or, where repr raises, the
    # picture says the values are unavailable).
    assert "workspace was reset" in pre.text
    assert facts_of(root)["memory kind"] == "Workspace"
    assert "workspace was reset" in tl.explain(w)


@pytest.mark.skipif(not tl.cuda.is_available(), reason="no CUDA device")
def test_cuda_tensors_render():
    x = tl.arange(12, dtype=tl.float32).reshape(3, 4).cuda()
    for t in (x, x.t(), x[:, 1::2], x[0].expand(2, 4)):
        root, _ = check_picture(t)
        f = facts_of(root)
        assert f["device"] == str(t.device)
        assert f["allocator"].startswith(
            tl.memory.allocator_for(str(t.device), tl.MemoryKind.Default))
    rep = tl.memory_report()
    assert any(d.startswith("cuda") for d in rep.devices)


def test_huge_tensors_render_quickly_and_small():
    for t in (tl.zeros(10 ** 6), tl.zeros(1000, 1000).t(),
              tl.zeros(1).expand(10 ** 7),
              tl.zeros(10 ** 6).flip(0)[::3]):
        t0 = time.perf_counter()
        h = t._repr_html_()
        s = tl.explain(t)
        dt = time.perf_counter() - t0
        assert dt < 3.0, dt
        assert len(h) < 45000, len(h)
        assert len(s) < 20000, len(s)
        parse_html(h)
    # Beyond MAX_VISITS the first visits are numbered, and it says so.
    h = tl.zeros(1).expand(10 ** 7)._repr_html_()
    assert "first {} visits numbered".format(_display.MAX_VISITS) in h
    root, want = check_picture(tl.zeros(10 ** 6).flip(0)[::3])
    assert min(v[0] for v in want.values()) == 0


# ---- explain ----------------------------------------------------------------


def test_explain_is_the_picture_as_text():
    t = tl.arange(12, dtype=tl.float32).reshape(3, 4).t()
    s = tl.explain(t)
    assert isinstance(s, str)
    assert s.startswith(repr(t) + "\n")
    f = facts_of(parse_html(t._repr_html_()))
    width = max(len(k) for k in f)
    lines = s.splitlines()
    for k, v in f.items():
        assert k.ljust(width) + "  " + v in lines, k
    rows = [ln.split() for ln in s.splitlines()
            if ln.startswith("  cell") or ln.startswith("  order")]
    assert rows[0][1:] == [str(c) for c in range(12)]
    assert rows[1][1:] == ["0", "3", "6", "9", "1", "4", "7", "10", "2",
                           "5", "8", "11"]
    s = tl.explain(tl.arange(12, dtype=tl.float32)[1::4])
    rows = [ln.split() for ln in s.splitlines() if ln.startswith("  order")]
    assert rows[0][1:] == [".", "0", ".", ".", ".", "1", ".", ".", ".",
                           "2", ".", "."]
    s = tl.explain(tl.arange(2, dtype=tl.float32).expand(3, 2))
    rows = [ln.split() for ln in s.splitlines() if ln.startswith("  times")]
    assert rows[0][1:] == ["3", "3"]


# ---- explain_reshape --------------------------------------------------------


def is_view_of(r, t):
    root = t._base if t._base is not None else t
    return r._base is root


def random_tensor(rng):
    nd = rng.randint(0, 4)
    shape = [rng.randint(0, 4) if rng.random() < 0.1 else rng.randint(1, 4)
             for _ in range(nd)]
    t = tl.arange(int(np.prod(shape)) if shape else 1,
                  dtype=tl.float32).reshape(shape)
    if nd >= 2 and rng.random() < 0.5:
        perm = list(range(nd))
        rng.shuffle(perm)
        t = t.permute(*perm)
    for d in range(t.ndim):
        if t.shape[d] > 1 and rng.random() < 0.3:
            t = t.narrow(d, rng.randint(0, 1), t.shape[d] - 1)
        if t.shape[d] > 1 and rng.random() < 0.2:
            t = t.flip(d)
    if t.ndim and rng.random() < 0.2:
        d = rng.randrange(t.ndim)
        if t.shape[d] == 1:
            shape = list(t.shape)
            shape[d] = rng.randint(2, 3)
            t = t.expand(*shape)
    if rng.random() < 0.2:
        t = t.unsqueeze(rng.randint(0, t.ndim))
    return t


def random_new_shape(rng, numel):
    if numel == 0:
        dims = [0] + [rng.randint(1, 3) for _ in range(rng.randint(0, 2))]
        rng.shuffle(dims)
        return tuple(dims)
    dims, left = [], numel
    while left > 1:
        divs = [d for d in range(2, left + 1) if left % d == 0]
        d = rng.choice(divs)
        dims.append(d)
        left //= d
    for _ in range(rng.randint(0, 2)):
        dims.insert(rng.randint(0, len(dims)), 1)
    rng.shuffle(dims)
    if dims and rng.random() < 0.3:
        dims[rng.randrange(len(dims))] = -1
    return tuple(dims)


def check_reshape_answer(t, shape):
    text = tl.explain_reshape(t, shape)
    r = t.reshape(shape)
    view = is_view_of(r, t)
    assert ("a VIEW" in text) == view, (t.shape, t.stride(), shape, text)
    assert ("a COPY" in text) == (not view), text
    strides, _ = _display.reshape_plan(tuple(t.shape), t.stride(),
                                       tuple(r.shape))
    if view:
        assert strides == r.stride(), (t.shape, t.stride(), shape)
        assert "strides {}".format(_display._tuple_str(r.stride())) in text
    else:
        assert strides is None
        with pytest.raises(tl.ShapeError):
            t.view(shape)
    return view


def test_explain_reshape_examples():
    t = tl.arange(12, dtype=tl.float32).reshape(3, 4)
    s = tl.explain_reshape(t, (2, 6))
    assert s.startswith("reshape (3, 4) with strides (4, 1) -> (2, 6): "
                        "a VIEW")
    s = tl.explain_reshape(t.t(), (12,))
    assert "a COPY" in s
    assert "the run stops at old dim 0: its stride is 1, not 3 x 4 = 12" in s
    s = tl.explain_reshape(t.t(), (2, 2, 3))
    assert "a VIEW" in s and "strides (2, 1, 4)" in s
    assert "a VIEW" in tl.explain_reshape(t, -1)
    assert "-> (4, 3)" in tl.explain_reshape(t, (-1, 3))
    assert "a VIEW" in tl.explain_reshape(tl.tensor(2.0), (1, 1))
    assert "a VIEW" in tl.explain_reshape(tl.zeros(0, 3), (3, 0, 5))
    for bad in ((5,), (-1, 5), (-1, -1), (2, -2)):
        with pytest.raises(tl.ShapeError):
            tl.explain_reshape(t, bad)
        with pytest.raises((tl.ShapeError, ValueError)):
            t.reshape(bad)
    for shape in ((12,), (2, 6), (4, 3), (1, 3, 4, 1), (-1,)):
        check_reshape_answer(t, shape)
        check_reshape_answer(t.t(), shape)
        check_reshape_answer(t[:, 1:], (-1,) if shape == (12,) else (9,))
        check_reshape_answer(t.flip(1), shape)
        check_reshape_answer(t[:1].expand(3, 4), shape)


def test_explain_reshape_matches_reshape_on_random_layouts():
    rng = random.Random(1234)
    views = copies = 0
    for _ in range(600):
        t = random_tensor(rng)
        shape = random_new_shape(rng, t.numel())
        if check_reshape_answer(t, shape):
            views += 1
        else:
            copies += 1
    assert views > 50 and copies > 50, (views, copies)


def random_strided(rng):
    """An arbitrary as_strided layout: gaps, overlaps, stride 0, size-1
    dims, often with contiguous runs."""
    nd = rng.randint(1, 4)
    sizes = [rng.randint(1, 4) for _ in range(nd)]
    strides = [rng.choice([0, 1, 2, 3, 4, 6, 8, 12]) for _ in range(nd)]
    if rng.random() < 0.4:
        acc = rng.choice([1, 2])
        for d in range(nd - 1, -1, -1):
            if rng.random() < 0.7:
                strides[d] = acc
            acc = max(strides[d], 1) * sizes[d]
    offset = rng.randint(0, 3)
    reach = offset + sum((n - 1) * st for n, st in zip(sizes, strides))
    return tl.arange(reach + 1, dtype=tl.float32).as_strided(
        sizes, strides, offset)


def test_explain_reshape_matches_reshape_on_random_strides():
    rng = random.Random(4321)
    views = copies = 0
    for _ in range(400):
        t = random_strided(rng)
        shape = random_new_shape(rng, t.numel())
        if check_reshape_answer(t, shape):
            views += 1
        else:
            copies += 1
    assert views > 40 and copies > 40, (views, copies)


def test_explain_reshape_matches_torch(torch):
    rng = random.Random(99)
    checked = 0
    for i in range(800):
        t = random_tensor(rng) if i % 2 else random_strided(rng)
        if any(s < 0 for s in t.stride()):
            continue  # torch has no negative strides
        shape = random_new_shape(rng, t.numel())
        ncells = t.untyped_storage().nbytes() // t.element_size()
        tt = torch.arange(max(ncells, 1), dtype=torch.float32).as_strided(
            tuple(t.shape), t.stride(), t.storage_offset())
        r = tt.reshape(shape)
        torch_view = (r.untyped_storage().data_ptr()
                      == tt.untyped_storage().data_ptr())
        text = tl.explain_reshape(t, shape)
        assert ("a VIEW" in text) == torch_view, (t.shape, t.stride(), shape)
        if torch_view:
            strides, _ = _display.reshape_plan(tuple(t.shape), t.stride(),
                                               tuple(r.shape))
            assert strides == r.stride(), (t.shape, t.stride(), shape)
        checked += 1
    assert checked > 300


# ---- memory_report ----------------------------------------------------------


def test_memory_report_prints_as_memory_summary():
    keep = [tl.zeros(1000), tl.zeros(10, memory_kind="persistent")]
    rep = tl.memory_report("cpu")
    assert str(rep) == tl.memory_summary("cpu")
    assert repr(rep) == tl.memory_summary("cpu")
    rep = tl.memory_report()
    assert rep.devices[0] == "cpu"
    assert str(rep) == "\n".join(tl.memory_summary(d) for d in rep.devices)
    del keep


def test_memory_report_html_has_a_bar_per_device_and_kind():
    keep = [tl.zeros(1 << 16), tl.empty(100, memory_kind="hostpageable")]
    rep = tl.memory_report()
    root = parse_html(rep._repr_html_())
    rows = [tr for tr in root.iter("tr") if "tl-mem-row" in classes(tr)]
    want = []
    for dev in rep.devices:
        for kind in tl.MemoryKind:
            try:
                tl.memory.allocator_for(dev, kind)
            except (ValueError, RuntimeError):
                continue
            want.append((dev, kind.name))
    assert [(r.get("data-device"), r.get("data-kind")) for r in rows] == want
    widths = {}
    for r in rows:
        bars = [e for e in r.iter(SVG + "svg") if "tl-bar" in classes(e)]
        assert len(bars) == 1
        active = [e for e in bars[0].iter(SVG + "rect")
                  if "tl-active" in classes(e)]
        cached = [e for e in bars[0].iter(SVG + "rect")
                  if "tl-cached" in classes(e)]
        assert len(active) == 1 and len(cached) == 1
        stats = tl.memory_stats(r.get("data-device"),
                                tl.MemoryKind[r.get("data-kind")])
        assert int(bars[0].get("data-active")) == stats["active_bytes"]
        assert int(bars[0].get("data-cached")) == stats["cached_bytes"]
        widths[r.get("data-device"), r.get("data-kind")] = float(
            active[0].get("width"))
    assert widths["cpu", "Default"] >= 1.0  # tiny but non-zero: still drawn
    totals = [tr for tr in root.iter("tr") if "tl-mem-total" in classes(tr)]
    assert [t.get("data-device") for t in totals] == rep.devices
    del keep


def test_non_tensors_are_refused():
    with pytest.raises(TypeError, match="expects a tensorlib.Tensor"):
        tl.explain(np.zeros(3))
    with pytest.raises(TypeError, match="expects a tensorlib.Tensor"):
        tl.explain_reshape([1, 2], (2,))


def test_tensor_has_repr_html():
    assert tl.Tensor._repr_html_ is _display.tensor_html
    assert callable(tl.explain) and callable(tl.explain_reshape)


def test_values_that_cannot_be_read_are_reported():
    class Unreadable:
        def __repr__(self):
            raise RuntimeError("this tensor's workspace was reset")

    assert _display._values(Unreadable()) == (
        "(values unavailable: RuntimeError: this tensor's workspace was "
        "reset)")


def test_text_is_escaped():
    assert _display._e('<a href="x">&') == (
        "&lt;a href=&quot;x&quot;&gt;&amp;")
