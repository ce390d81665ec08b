"""Pictures of tensors and of memory, for notebooks and for the terminal.

``Tensor._repr_html_`` (Jupyter's rich display) shows a tensor's values, a
table of its layout facts and an SVG strip of its storage in which the
cells the view reaches are numbered in the order the view visits them, so
slicing, transposes, negative strides and broadcasts can be seen.
``explain(t)`` is the same as text.  ``explain_reshape(t, shape)`` says
whether ``t.reshape(shape)`` will be a view or a copy, and why.
``memory_report()`` is ``memory_summary()`` that also draws itself in a
notebook.

Everything here reads metadata only (shape, strides, offset, storage size);
the values come from the tensor's own repr.  A tensor whose workspace was
reset still gets its picture, with a note instead of values.
"""
import html as _html

import numpy as _np

from . import _C
from . import MemoryKind
from . import memory as _memory

__all__ = ["explain", "explain_reshape", "memory_report", "MemoryReport"]

#: Storage cells drawn at most (a window over larger storages).
MAX_CELLS = 128
#: Cells per row of the SVG strip.
CELLS_PER_ROW = 32
#: Cells per row of explain()'s text strip.
TEXT_CELLS_PER_ROW = 16
#: Visits (elements of the view, in row-major order) enumerated at most.
MAX_VISITS = 1 << 20
#: Visit numbers listed per cell in data-visits (the count is exact).
MAX_LISTED = 16

_CELL_W = 30
_CELL_H = 26
_ROW_H = 44
_PAD = 8


# ---- facts ------------------------------------------------------------------


def _tuple_str(xs):
    xs = tuple(int(x) for x in xs)
    if len(xs) == 1:
        return "({},)".format(xs[0])
    return "(" + ", ".join(str(x) for x in xs) + ")"


def _dtype_name(dtype):
    return str(dtype).replace("tensorlib.", "")


def _kind_name(kind):
    try:
        return MemoryKind(int(kind)).name
    except (TypeError, ValueError):
        return str(kind)


def _non_overlapping_and_dense(sizes, strides):
    """PyTorch's is_non_overlapping_and_dense: some permutation of the dims
    is contiguous (size-0/1 dims anywhere)."""
    n = len(sizes)
    if n == 0:
        return True
    if n == 1:
        return sizes[0] < 2 or strides[0] == 1
    perm = sorted(range(n), key=lambda d: (sizes[d] < 2, strides[d]
                                           if sizes[d] >= 2 else 0))
    need = 1
    for d in perm:
        if sizes[d] < 2:
            return True
        if strides[d] != need:
            return False
        need *= sizes[d]
    return True


def _format_flags(t, sizes, strides):
    flags = []
    if t.is_contiguous():
        flags.append("contiguous")
    if len(sizes) == 4 and t.is_contiguous(memory_format=_C.channels_last):
        flags.append("channels_last")
    if len(sizes) == 5 and t.is_contiguous(
            memory_format=_C.channels_last_3d):
        flags.append("channels_last_3d")
    if _non_overlapping_and_dense(sizes, strides):
        flags.append("non-overlapping and dense")
    zero = [d for d in range(len(sizes)) if strides[d] == 0 and sizes[d] > 1]
    if zero:
        flags.append("broadcast (stride 0) in dim{} {}".format(
            "s" if len(zero) > 1 else "", ", ".join(map(str, zero))))
    neg = [d for d in range(len(sizes)) if strides[d] < 0]
    if neg:
        flags.append("negative stride in dim{} {}".format(
            "s" if len(neg) > 1 else "", ", ".join(map(str, neg))))
    return ", ".join(flags) if flags else "none (a strided view)"


class _Layout:
    """The metadata of a tensor and the storage cells its view visits."""

    def __init__(self, t):
        self.t = t
        self.sizes = tuple(int(s) for s in t.shape)
        self.strides = tuple(int(s) for s in t.stride())
        self.offset = int(t.storage_offset())
        self.itemsize = int(t.element_size())
        self.dtype = _dtype_name(t.dtype)
        self.numel = 1
        for s in self.sizes:
            self.numel *= s
        storage = t.untyped_storage()
        self.storage_bytes = int(storage.nbytes())
        self.ncells = self.storage_bytes // self.itemsize
        # The smallest and largest storage cells the view reaches, in
        # closed form (no enumeration).
        if self.numel:
            lo = hi = self.offset
            for n, s in zip(self.sizes, self.strides):
                reach = (n - 1) * s
                if reach < 0:
                    lo += reach
                else:
                    hi += reach
            self.lo, self.hi = lo, hi
        else:
            self.lo = self.hi = None
        # The first MAX_VISITS visits, in row-major order of the view.
        k = min(self.numel, MAX_VISITS)
        self.truncated = k < self.numel
        if k == 0:
            self.visits = _np.empty(0, dtype=_np.int64)
        elif not self.sizes:
            self.visits = _np.array([self.offset], dtype=_np.int64)
        else:
            idx = _np.unravel_index(_np.arange(k, dtype=_np.int64),
                                    self.sizes)
            v = _np.full(k, self.offset, dtype=_np.int64)
            for i, s in zip(idx, self.strides):
                if s:
                    v += i.astype(_np.int64) * s
            self.visits = v
        if self.numel and not self.truncated:
            span = self.hi - self.lo + 1
            if span <= 4 * max(k, 1) + 1024:
                self.distinct = int(_np.count_nonzero(_np.bincount(
                    self.visits - self.lo, minlength=span)))
            else:
                self.distinct = int(_np.unique(self.visits).size)
        elif self.numel:
            self.distinct = None  # not enumerated
        else:
            self.distinct = 0
        self._window()

    def _window(self):
        """The storage cells drawn: [w0, w1), at most MAX_CELLS."""
        n = self.ncells
        if n <= MAX_CELLS:
            self.w0, self.w1 = 0, n
        else:
            # The span the view reaches when it fits, else the cells
            # around its first visit, in the direction the visits go.
            if self.lo is None:
                start = 0
            elif self.hi - self.lo + 5 <= MAX_CELLS:
                # The whole span, two cells of context either side.
                self.w0 = max(0, self.lo - 2)
                self.w1 = min(n, self.hi + 3)
                self._count_visits()
                return
            else:
                v = self.visits
                down = v.size > 1 and int(v[1]) < int(v[0])
                start = (int(v[0]) + 3 - MAX_CELLS if down
                         else int(v[0]) - 2)
            start = max(0, min(start, n - MAX_CELLS))
            self.w0, self.w1 = start, start + MAX_CELLS
        self._count_visits()

    def _count_visits(self):
        w = self.w1 - self.w0
        self.first = _np.full(w, -1, dtype=_np.int64)
        self.count = _np.zeros(w, dtype=_np.int64)
        self.listed = [[] for _ in range(w)]
        if w == 0 or self.visits.size == 0:
            return
        inside = _np.nonzero((self.visits >= self.w0)
                             & (self.visits < self.w1))[0]
        cells = self.visits[inside] - self.w0
        self.count = _np.bincount(cells, minlength=w).astype(_np.int64)
        # The last write wins: writing in reverse leaves the first visit.
        self.first[cells[::-1]] = inside[::-1]
        # The first MAX_LISTED visit numbers of each cell.
        order = _np.argsort(cells, kind="stable")
        sc, si = cells[order], inside[order]
        starts = _np.searchsorted(sc, _np.arange(w))
        for c in _np.nonzero(self.count)[0]:
            b = starts[c]
            self.listed[c] = [int(x) for x in
                              si[b:b + min(MAX_LISTED, self.count[c])]]

    def facts(self):
        t = self.t
        rows = [
            ("shape", _tuple_str(self.sizes)),
            ("strides", "{} elements = {} bytes".format(
                _tuple_str(self.strides),
                _tuple_str(s * self.itemsize for s in self.strides))),
            ("storage offset", "{} elements ({} bytes)".format(
                self.offset, self.offset * self.itemsize)),
            ("dtype", "{} ({} byte{} per element)".format(
                self.dtype, self.itemsize, "" if self.itemsize == 1
                else "s")),
            ("device", str(t.device)),
            ("memory kind", _kind_name(t.memory_kind)
             + (" (pinned)" if self._pinned() else "")),
            ("contiguous", "yes" if t.is_contiguous() else "no"),
            ("layout", _format_flags(t, self.sizes, self.strides)),
            ("version", str(t._version)),
            ("view", self._view_fact()),
            ("storage", self._storage_fact()),
            ("allocator", self._allocator_fact()),
            ("elements", self._elements_fact()),
        ]
        return rows

    def _pinned(self):
        try:
            return bool(self.t.is_pinned())
        except MemoryError:
            raise
        except Exception:  # noqa: BLE001 - best effort (device tensors)
            return False

    def _fixed(self):
        try:
            return not self.t.untyped_storage().resizable()
        except MemoryError:
            raise
        except Exception:  # noqa: BLE001 - best effort
            return False

    def _storage_fact(self):
        s = "{} bytes = {} x {}".format(self.storage_bytes, self.ncells,
                                        self.dtype)
        if self._fixed():
            s += (" (fixed size: memory lent by another library, e.g. "
                  "NumPy or DLPack, or an ExecutionPlan buffer)")
        return s

    def _view_fact(self):
        t = self.t
        base = t._base
        if base is None:
            return "no: not a view of another tensor"
        return "yes, of a tensor of shape {}, strides {}, offset {}".format(
            _tuple_str(base.shape), _tuple_str(base.stride()),
            base.storage_offset())

    def _allocator_fact(self):
        t = self.t
        try:
            owner = t.untyped_storage().allocator
        except RuntimeError as e:  # a reset workspace's tensor
            return "unknown ({})".format(e)
        if owner is not None:
            return owner
        if t.memory_kind == MemoryKind.Workspace:
            return "none: carved from a workspace arena"
        return ("none: memory lent by another library (NumPy, DLPack, a "
                "buffer) or carved from an ExecutionPlan's block")

    def _elements_fact(self):
        n = self.numel
        if n == 0:
            return "0: the view reaches no storage cell"
        if self.distinct is None:
            return "{} (more than {} visits: not all enumerated)".format(
                n, MAX_VISITS)
        s = "{} visiting {} distinct storage cell{}".format(
            n, self.distinct, "" if self.distinct == 1 else "s")
        if self.distinct < n:
            s += " (some cells are visited more than once)"
        return s

    def strip_caption(self):
        parts = ["storage: {} x {} ({} bytes)".format(
            self.ncells, self.dtype, self.storage_bytes)]
        if self.w0 > 0 or self.w1 < self.ncells:
            parts.append("cells {}..{} shown".format(self.w0, self.w1 - 1))
        if self.truncated:
            parts.append("first {} visits numbered".format(MAX_VISITS))
        return "; ".join(parts)


# ---- text -------------------------------------------------------------------


def _values(t):
    try:
        return repr(t)
    except MemoryError:
        raise
    except Exception as e:  # noqa: BLE001 - e.g. a reset workspace
        return "(values unavailable: {}: {})".format(type(e).__name__, e)


def _text_strip(lay):
    out = ["storage cells (number = the order in which the view visits "
           "the cell, . = not visited):"]
    if lay.ncells == 0:
        out.append("  (the storage is empty)")
        return out
    if lay.w0 > 0:
        out.append("  ... {} cell{} before".format(
            lay.w0, "" if lay.w0 == 1 else "s"))
    repeated = bool((lay.count > 1).any())
    for r0 in range(0, lay.w1 - lay.w0, TEXT_CELLS_PER_ROW):
        r1 = min(r0 + TEXT_CELLS_PER_ROW, lay.w1 - lay.w0)
        cells = [str(lay.w0 + c) for c in range(r0, r1)]
        order = [str(lay.first[c]) if lay.first[c] >= 0 else "."
                 for c in range(r0, r1)]
        times = [str(lay.count[c]) if lay.count[c] else "."
                 for c in range(r0, r1)]
        w = max(len(x) for x in cells + order + times) + 1
        out.append("  cell  " + "".join(x.rjust(w) for x in cells))
        out.append("  order " + "".join(x.rjust(w) for x in order))
        if repeated:
            out.append("  times " + "".join(x.rjust(w) for x in times))
    rest = lay.ncells - lay.w1
    if rest > 0:
        out.append("  ... {} cell{} after".format(
            rest, "" if rest == 1 else "s"))
    if lay.truncated:
        out.append("  (only the first {} visits are numbered)".format(
            MAX_VISITS))
    return out


def _check_tensor(t, fname):
    if not isinstance(t, _C.Tensor):
        raise TypeError("{}() expects a tensorlib.Tensor, got {}".format(
            fname, type(t).__name__))


def explain(t):
    """The tensor's values, its layout facts and its storage strip as text:
    the same as its notebook picture (``Tensor._repr_html_``)."""
    _check_tensor(t, "explain")
    lay = _Layout(t)
    lines = [_values(t), ""]
    width = max(len(k) for k, _ in lay.facts())
    for k, v in lay.facts():
        lines.append("{}  {}".format(k.ljust(width), v))
    lines.append("")
    lines.extend(_text_strip(lay))
    return "\n".join(lines) + "\n"


# ---- HTML and SVG -----------------------------------------------------------


def _e(s):
    return _html.escape(str(s), quote=True)


def _cell_fill(order, numel):
    """Light to dark blue along the visiting order."""
    frac = order / (numel - 1) if numel > 1 else 0.0
    light = 86 - int(round(50 * frac))
    return "hsl(212, 70%, {}%)".format(light), (
        "#ffffff" if light < 62 else "#0b2545")


def _svg(lay):
    w = lay.w1 - lay.w0
    per_row = min(CELLS_PER_ROW, max(w, 1))
    nrows = max(1, -(-w // CELLS_PER_ROW))
    top = 18  # caption line
    before = lay.w0 > 0
    after = lay.w1 < lay.ncells
    caption = lay.strip_caption()
    width = max(_PAD * 2 + per_row * _CELL_W,
                _PAD * 2 + int(len(caption) * 6.8))
    height = top + nrows * _ROW_H + (16 if after else 0) + _PAD
    if before:
        height += 16
    out = ['<svg xmlns="http://www.w3.org/2000/svg" class="tl-storage" '
           'width="{0}" height="{1}" viewBox="0 0 {0} {1}" '
           'font-family="monospace" data-cells="{2}" data-first-cell="{3}" '
           'data-numel="{4}">'.format(width, height, lay.ncells, lay.w0,
                                      lay.numel)]
    out.append('<text x="{}" y="12" font-size="11" fill="#333">{}</text>'
               .format(_PAD, _e(caption)))
    y0 = top
    if before:
        out.append('<text class="tl-more" x="{}" y="{}" font-size="10" '
                   'fill="#666">{}</text>'.format(
                       _PAD, y0 + 10, _e("\u2026 {} cells before".format(
                           lay.w0))))
        y0 += 16
    if w == 0:
        out.append('<text x="{}" y="{}" font-size="11" fill="#666">'
                   'the storage is empty</text>'.format(_PAD, y0 + 16))
    # Shared attributes sit on groups, so a cell costs a few short tags.
    labels, rects, orders, counts = [], [], [], []
    wh = 'width="{}" height="{}"'.format(_CELL_W - 2, _CELL_H)
    for c in range(w):
        cell = lay.w0 + c
        x = _PAD + (c % CELLS_PER_ROW) * _CELL_W
        y = y0 + (c // CELLS_PER_ROW) * _ROW_H + 12
        order, count = int(lay.first[c]), int(lay.count[c])
        labels.append('<text x="{}" y="{}">{}</text>'.format(
            x + _CELL_W // 2, y - 2, cell))
        if order < 0:
            rects.append('<rect class="tl-cell" data-offset="{}" x="{}" '
                         'y="{}" {}/>'.format(cell, x, y, wh))
            continue
        fill, ink = _cell_fill(order, lay.numel)
        listed = lay.listed[c]
        tip = ""
        if count > 1:
            tip = "<title>{}</title>".format(_e(
                "storage[{}]: visited {} times, at {}{}".format(
                    cell, count, ", ".join(map(str, listed)),
                    ", \u2026" if count > len(listed) else "")))
        rects.append('<rect class="tl-cell tl-visited" data-offset="{}" '
                     'data-order="{}" data-count="{}" data-visits="{}" '
                     'x="{}" y="{}" {} fill="{}" stroke="{}"{}>{}</rect>'
                     .format(cell, order, count, " ".join(map(str, listed)),
                             x, y, wh, fill,
                             "#e8590c" if count > 1 else "#1c4e80",
                             ' stroke-width="2"' if count > 1 else "", tip))
        label = str(order)
        size = min(11, int(50 / max(len(label), 1)))
        orders.append('<text class="tl-order" x="{}" y="{}"{} fill="{}">'
                      '{}</text>'.format(
                          x + (_CELL_W - 2) // 2, y + _CELL_H // 2 + 4,
                          "" if size == 11 else ' font-size="{}"'.format(
                              size), ink, label))
        if count > 1:
            counts.append('<text class="tl-count" x="{}" y="{}" fill="{}">'
                          '{}</text>'.format(
                              x + _CELL_W - 4, y + _CELL_H - 2, ink,
                              _e("\u00d7{}{}".format(
                                  count, "+" if lay.truncated else ""))))
    out.append('<g font-size="7" fill="#888" text-anchor="middle">{}</g>'
               .format("".join(labels)))
    out.append('<g fill="#f3f3f3" stroke="#c8c8c8">{}</g>'.format(
        "".join(rects)))
    out.append('<g font-size="11" text-anchor="middle">{}</g>'.format(
        "".join(orders)))
    if counts:
        out.append('<g font-size="7" text-anchor="end">{}</g>'.format(
            "".join(counts)))
    if after:
        y = y0 + nrows * _ROW_H + 10
        out.append('<text class="tl-more" x="{}" y="{}" font-size="10" '
                   'fill="#666">{}</text>'.format(
                       _PAD, y, _e("\u2026 {} cells after".format(
                           lay.ncells - lay.w1))))
    out.append("</svg>")
    return "".join(out)


def tensor_html(t):
    """``Tensor._repr_html_``: values, facts table and storage strip."""
    lay = _Layout(t)
    rows = "".join('<tr><th style="text-align:left;padding-right:1em">{}'
                   '</th><td style="text-align:left">{}</td></tr>'.format(
                       _e(k), _e(v)) for k, v in lay.facts())
    return ('<div class="tl-tensor">'
            '<div style="display:flex;flex-wrap:wrap;gap:1.5em;'
            'align-items:flex-start">'
            '<pre class="tl-values" style="margin:0">{}</pre>'
            '<table class="tl-facts" style="font-size:90%"><tbody>{}'
            '</tbody></table></div>'
            '<div class="tl-strip">{}</div></div>').format(
                _e(_values(t)), rows, _svg(lay))


# ---- reshape: a view or a copy? ---------------------------------------------


def _infer_shape(numel, shape):
    if isinstance(shape, int) or hasattr(shape, "__index__"):
        shape = (shape,)
    shape = [int(s) for s in shape]
    infer = [i for i, s in enumerate(shape) if s == -1]
    if len(infer) > 1:
        raise _C.ShapeError("only one dimension can be inferred")
    for s in shape:
        if s < -1:
            raise _C.ShapeError("invalid shape dimension {}".format(s))
    prod = 1
    for s in shape:
        if s != -1:
            prod *= s
    if infer:
        if prod == 0 or numel % prod:
            raise _C.ShapeError("shape {} is invalid for input of size {}"
                                .format(_tuple_str(shape), numel))
        shape[infer[0]] = numel // prod
    elif prod != numel:
        raise _C.ShapeError("shape {} is invalid for input of size {}"
                            .format(_tuple_str(shape), numel))
    return tuple(shape)


def _contiguous_strides(shape):
    out, acc = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        out[d] = acc
        acc *= max(shape[d], 1)
    return tuple(out)


def _dims(ds):
    ds = sorted(ds)
    if len(ds) == 1:
        return "dim {}".format(ds[0])
    if ds == list(range(ds[0], ds[-1] + 1)):
        return "dims {}-{}".format(ds[0], ds[-1])
    return "dims " + ", ".join(map(str, ds))


def _sizes_of(what, ds, sizes):
    ds = sorted(ds)
    if len(ds) == 1:
        return "{} (size {})".format(what, sizes[ds[0]])
    return "{} (sizes {})".format(what, _tuple_str(sizes[i] for i in ds))


def reshape_plan(sizes, strides, new_shape):
    """PyTorch's computeStride rule (tensorlib's tl_view_strides), with its
    reasoning: returns (new strides, or None for a copy; reason lines)."""
    sizes, strides = tuple(sizes), tuple(strides)
    new_shape = tuple(new_shape)
    numel = 1
    for s in sizes:
        numel *= s
    if numel == 0 and sizes == new_shape:
        return strides, ["an empty tensor viewed as its own shape keeps "
                         "its strides"]
    if numel == 0:
        return _contiguous_strides(new_shape), [
            "the tensor has no elements: every shape of 0 elements is a "
            "view of it"]
    if not sizes:
        return _contiguous_strides(new_shape), [
            "a 0-d tensor has one element: every shape of one element is a "
            "view of it"]
    # Walk the old dims from the last: a chunk is a maximal run of old dims
    # contiguous with each other (size-1 dims never break a run); the new
    # dims, also from the last, must cover each chunk exactly.
    out = [0] * len(new_shape)
    vd = len(new_shape) - 1
    base = strides[-1]
    chunk_numel = view_numel = 1
    chunk = []
    done = []
    for d in range(len(sizes) - 1, -1, -1):
        chunk_numel *= sizes[d]
        chunk.append(d)
        ends = d == 0 or (sizes[d - 1] != 1
                          and strides[d - 1] != chunk_numel * base)
        if not ends:
            continue
        first_new = vd
        while vd >= 0 and (view_numel < chunk_numel or new_shape[vd] == 1):
            out[vd] = view_numel * base
            view_numel *= new_shape[vd]
            vd -= 1
        new_dims = list(range(vd + 1, first_new + 1))
        run = _sizes_of("old " + _dims(chunk), chunk, sizes)
        holds = "{} element{}, {} apart".format(
            chunk_numel, "" if chunk_numel == 1 else "s", base)
        if view_numel != chunk_numel:
            reasons = [
                "a view needs every new dim to lie inside one run of old "
                "dims that are contiguous with each other",
                "{} is such a run: {}".format(run, holds)]
            if d > 0:
                reasons.append(
                    "the run stops at old dim {}: its stride is {}, not "
                    "{} x {} = {}".format(d - 1, strides[d - 1],
                                          chunk_numel, base,
                                          chunk_numel * base))
            if new_dims:
                reasons.append(
                    "{} would cover {} elements, not {}: a new dim would "
                    "have to step across the break, which one stride "
                    "cannot do".format(
                        _sizes_of("new " + _dims(new_dims), new_dims,
                                  new_shape), view_numel, chunk_numel))
            return None, reasons
        into = (_sizes_of("new " + _dims(new_dims), new_dims, new_shape)
                if new_dims else "no new dim (size-1 dims only)")
        done.append("{}: {} -> {}".format(run, holds, into))
        if d > 0:
            base = strides[d - 1]
            chunk_numel = view_numel = 1
            chunk = []
    if vd != -1:
        return None, ["new {} are left over".format(_dims(range(vd + 1)))]
    return tuple(out), ["every new dim lies inside one run of old dims "
                        "that are contiguous with each other"] + done[::-1]


def explain_reshape(t, shape):
    """Whether ``t.reshape(shape)`` will be a view of t or a copy, and why:
    PyTorch's rule (the new dims must be cut out of runs of old dims that
    are contiguous with each other), which tensorlib's reshape uses.
    ``shape`` is a sequence of ints (one may be -1) or an int.  Raises
    ShapeError where reshape would."""
    _check_tensor(t, "explain_reshape")
    sizes = tuple(int(s) for s in t.shape)
    strides = tuple(int(s) for s in t.stride())
    numel = 1
    for s in sizes:
        numel *= s
    new_shape = _infer_shape(numel, shape)
    new_strides, reasons = reshape_plan(sizes, strides, new_shape)
    head = "reshape {} with strides {} -> {}: ".format(
        _tuple_str(sizes), _tuple_str(strides), _tuple_str(new_shape))
    if new_strides is not None:
        lines = [head + "a VIEW (no copy: it shares t's storage, with "
                 "strides {} and storage offset {})".format(
                     _tuple_str(new_strides), t.storage_offset())]
        tail = "t.view({}) gives the same view".format(
            _tuple_str(new_shape))
    else:
        lines = [head + "a COPY (a new contiguous tensor with strides {}; "
                 "writes to it do not reach t)".format(
                     _tuple_str(_contiguous_strides(new_shape)))]
        tail = "t.view({}) raises instead".format(_tuple_str(new_shape))
    lines.append("  why: " + reasons[0])
    lines += ["  - " + r for r in reasons[1:]]
    lines.append("  " + tail)
    return "\n".join(lines) + "\n"


# ---- memory -----------------------------------------------------------------


def _devices():
    devs = ["cpu"]
    try:
        from . import cuda
        if cuda.is_available():
            devs += ["cuda:{}".format(i) for i in range(cuda.device_count())]
    except Exception:  # noqa: BLE001 - no CUDA: the CPU only
        pass
    return devs


class MemoryReport:
    """A snapshot of the allocator statistics: prints as
    ``memory_summary()``'s text; in a notebook, a table with a bar per
    (device, memory kind) of active and cached bytes."""

    def __init__(self, devices):
        self.devices = list(devices)
        self.text = "\n".join(_memory.memory_summary(d)
                              for d in self.devices)
        self.rows = []
        self.totals = {}
        for dev in self.devices:
            seen = {}
            for kind in MemoryKind:
                try:
                    name = _memory.allocator_for(dev, kind)
                except (ValueError, RuntimeError):
                    continue
                stats = dict(_memory.memory_stats(dev, kind))
                self.rows.append({"device": dev, "kind": kind.name,
                                  "allocator": name,
                                  "shared_with": seen.get(name),
                                  "stats": stats})
                seen.setdefault(name, kind.name)
            self.totals[dev] = dict(_memory.memory_stats(dev))

    def __str__(self):
        return self.text

    def __repr__(self):
        return self.text

    def _repr_pretty_(self, p, cycle):
        p.text(self.text)

    def _repr_html_(self):
        fmt = _memory._fmt_bytes
        scale = 1
        for r in self.rows:
            s = r["stats"]
            scale = max(scale, s["active_bytes"] + s["cached_bytes"],
                        s["reserved_bytes"])
        bar_w = 220

        def bar(s, faded):
            # Linear in bytes; anything non-zero gets at least a pixel.
            a = s["active_bytes"] * bar_w / scale
            c = s["cached_bytes"] * bar_w / scale
            a = max(a, 1.0) if s["active_bytes"] else 0.0
            c = min(max(c, 1.0), bar_w - a) if s["cached_bytes"] else 0.0
            op = "0.45" if faded else "1"
            return ('<svg xmlns="http://www.w3.org/2000/svg" class="tl-bar" '
                    'width="{w}" height="14" data-active="{ab}" '
                    'data-cached="{cb}" opacity="{op}">'
                    '<rect x="0" y="1" width="{w}" height="12" '
                    'fill="#f3f3f3"/>'
                    '<rect class="tl-active" x="0" y="1" width="{a:.1f}" '
                    'height="12" fill="#1c7ed6"/>'
                    '<rect class="tl-cached" x="{a:.1f}" y="1" '
                    'width="{c:.1f}" height="12" fill="#a5d8ff"/>'
                    '</svg>').format(w=bar_w, a=a, c=c, ab=s["active_bytes"],
                                     cb=s["cached_bytes"], op=op)

        head = ("<tr><th>device</th><th>kind</th><th>allocator</th>"
                "<th>active</th><th>cached</th><th>reserved</th>"
                "<th>peak</th><th>allocs</th><th>hits / misses</th>"
                "<th style=\"text-align:left\">active "
                "<span style=\"color:#1c7ed6\">\u25a0</span> cached "
                "<span style=\"color:#a5d8ff\">\u25a0</span></th></tr>")
        body = []
        for r in self.rows:
            s = r["stats"]
            alloc = r["allocator"]
            if r["shared_with"]:
                alloc += " (as {})".format(r["shared_with"])
            body.append(
                '<tr class="tl-mem-row" data-device="{}" data-kind="{}">'
                "<td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td>"
                "<td>{}</td><td>{}</td><td>{}</td><td>{} / {}</td>"
                "<td>{}</td></tr>".format(
                    _e(r["device"]), _e(r["kind"]), _e(r["device"]),
                    _e(r["kind"]), _e(alloc), _e(fmt(s["active_bytes"])),
                    _e(fmt(s["cached_bytes"])), _e(fmt(s["reserved_bytes"])),
                    _e(fmt(s["active_bytes_peak"])), s["alloc_count"],
                    s["cache_hits"], s["cache_misses"],
                    bar(s, bool(r["shared_with"]))))
        for dev in self.devices:
            s = self.totals[dev]
            body.append(
                '<tr class="tl-mem-total" data-device="{}" '
                'style="font-weight:bold"><td>{}</td><td>total</td>'
                "<td>(distinct)</td><td>{}</td><td>{}</td><td>{}</td>"
                "<td>{}</td><td>{}</td><td>{} / {}</td><td></td></tr>".format(
                    _e(dev), _e(dev), _e(fmt(s["active_bytes"])),
                    _e(fmt(s["cached_bytes"])), _e(fmt(s["reserved_bytes"])),
                    _e(fmt(s["active_bytes_peak"])), s["alloc_count"],
                    s["cache_hits"], s["cache_misses"]))
        note = ("Bars share one scale ({}); a faded bar is an allocator "
                "already shown in a row above (one set of counters)."
                .format(fmt(scale)))
        return ('<div class="tl-memory"><table class="tl-memory-table">'
                "<thead>{}</thead><tbody>{}</tbody></table>"
                '<p style="font-size:85%;color:#555">{}</p></div>').format(
                    head, "".join(body), _e(note))


def memory_report(device=None):
    """Allocator statistics of ``device`` (default: the CPU and every
    available CUDA device) as a ``MemoryReport``: ``str()`` of it is
    ``memory_summary(device)`` (the devices' summaries joined by a blank
    line), and notebooks draw it as a table with bars."""
    if device is None:
        devices = _devices()
    else:
        devices = [str(device)]
    return MemoryReport(devices)
