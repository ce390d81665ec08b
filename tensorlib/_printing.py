"""Printing of tensors, in the style of PyTorch's repr.

tensor([[1., 2.],
        [3., 4.]], dtype=tensorlib.float64)
"""
import math

_opts = {
    "precision": 4,
    "threshold": 1000,
    "edgeitems": 3,
    "linewidth": 80,
    "sci_mode": None,
}

# dtypes whose name is not shown, as PyTorch hides its defaults.
_HIDDEN = {"float32", "int64", "bool", "complex64"}


def _summarize_list(t, edge):
    """Nested lists of the values a summarised print shows, with None for
    the elided middle of each dimension."""
    if t.ndim == 0:
        return t.item()
    n = t.shape[0]
    if n > 2 * edge:
        idx = list(range(edge)) + [None] + list(range(n - edge, n))
    else:
        idx = list(range(n))
    return [None if i is None else _summarize_list(t[i], edge) for i in idx]


def _flatten(v, out):
    if isinstance(v, list):
        for x in v:
            _flatten(x, out)
    elif v is not None:
        out.append(v)


class _Formatter:
    def __init__(self, values, kind):
        self.kind = kind
        p = _opts["precision"]
        self.fmt = "{}"
        if kind == "bool" or kind == "int":
            strs = [str(v) for v in values]
            self.width = max([len(s) for s in strs], default=1)
            return
        if kind == "complex":
            self.re = _Formatter([v.real for v in values], "float")
            self.im = _Formatter([v.imag for v in values], "float")
            self.width = self.re.width + self.im.width + 2
            return
        finite = [abs(v) for v in values if math.isfinite(v) and v != 0]
        self.int_mode = all(math.isfinite(v) is False or v == math.floor(v)
                            for v in values)
        sci = _opts["sci_mode"]
        if finite:
            mx, mn = max(finite), min(finite)
            if sci is None:
                if self.int_mode:
                    sci = mx / mn > 1000.0 or mx > 1.0e8
                else:
                    sci = mx / mn > 1000.0 or mx > 1.0e8 or mn < 1.0e-4
        self.sci = bool(sci)
        if self.sci:
            self.fmt = "{:.%de}" % p
        elif self.int_mode:
            self.fmt = "{:.0f}."
        else:
            self.fmt = "{:.%df}" % p
        self.width = max([len(self._one(v)) for v in values], default=1)

    def _one(self, v):
        if not math.isfinite(v):
            return str(v)
        return self.fmt.format(v)

    def format(self, v):
        if self.kind == "bool" or self.kind == "int":
            s = str(v)
        elif self.kind == "complex":
            re = self.re.format(v.real)
            im = self.im._one(abs(v.imag))
            sign = "-" if (v.imag < 0 or math.copysign(1, v.imag) < 0) else "+"
            s = "{}{}{}j".format(re, sign, im)
            return s
        else:
            s = self._one(v)
        return s.rjust(self.width)


def _kind(dt):
    if dt.name == "bool":
        return "bool"
    if dt.is_complex:
        return "complex"
    if dt.is_floating_point:
        return "float"
    return "int"


def _format_nested(v, fmt, indent, ndim, linewidth):
    if ndim == 0:
        return fmt.format(v)
    if ndim == 1:
        items = ["..." if x is None else fmt.format(x) for x in v]
        # Wrap to the line width.
        per_line = max(1, (linewidth - indent) // (fmt.width + 2))
        lines = [", ".join(items[i:i + per_line])
                 for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    sep = "," + "\n" * (ndim - 1) + " " * (indent + 1)
    parts = ["..." if x is None
             else _format_nested(x, fmt, indent + 1, ndim - 1, linewidth)
             for x in v]
    return "[" + sep.join(parts) + "]"


def tensor_repr(t):
    dt = t.dtype
    suffix = []
    prefix = "tensor("
    if t.device.type != "cpu":
        suffix.append("device='{}'".format(t.device))
    if t.numel() == 0:
        body = "[]"
        if t.ndim != 1:
            suffix.insert(0, "size={}".format(tuple(t.shape)))
    else:
        summarize = t.numel() > _opts["threshold"]
        edge = _opts["edgeitems"]
        if dt.name == "bfloat16" or dt.name == "float16":
            values_src = t
        else:
            values_src = t
        nested = (_summarize_list(values_src, edge) if summarize
                  else values_src.tolist())
        flat = []
        _flatten(nested, flat)
        fmt = _Formatter(flat, _kind(dt))
        body = _format_nested(nested, fmt, len(prefix), t.ndim,
                              _opts["linewidth"])
    if dt.name not in _HIDDEN or (t.numel() == 0 and dt.name != "float32"):
        suffix.append("dtype=tensorlib.{}".format(dt.name))
    if suffix:
        return prefix + body + ", " + ", ".join(suffix) + ")"
    return prefix + body + ")"


def set_printoptions(precision=None, threshold=None, edgeitems=None,
                     linewidth=None, sci_mode=None):
    """Set the options used by repr(tensor), as torch.set_printoptions."""
    for k, v in (("precision", precision), ("threshold", threshold),
                 ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if v is not None:
            _opts[k] = v
    _opts["sci_mode"] = sci_mode
