"""Printing of tensors, in the style of PyTorch's repr.

tensor([[1., 2.],
        [3., 4.]], dtype=tensorlib.float64)

The algorithm is PyTorch's (torch/_tensor_str.py): one formatter over all
the printed values (the real and imaginary parts of complex tensors get one
each) decides between integer, fixed and scientific notation and the column
width; rows wrap at the line width; large tensors are summarised with
`edgeitems` values at each end of every dimension; suffixes (device, size,
dtype) follow the body and wrap to a new line when they would not fit.
It works on Python values (tolist() and item()), so it needs no tensor ops.
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
_DEFAULT_DTYPE = "float32"


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
    if t.ndim == 1:
        return [None if i is None else t[i].item() for i in idx]
    return [None if i is None else _summarize_list(t[i], edge) for i in idx]


def _flatten(v, out):
    if isinstance(v, list):
        for x in v:
            _flatten(x, out)
    elif v is not None:
        out.append(v)


class _Formatter:
    """PyTorch's _Formatter over a flat list of Python values."""

    def __init__(self, values, floating):
        self.floating_dtype = floating
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        p = _opts["precision"]
        if not floating:
            for v in values:
                self.max_width = max(self.max_width, len("{}".format(v)))
            return
        nonzero_finite = [v for v in values if math.isfinite(v) and v != 0]
        if not nonzero_finite:
            return
        absolute = [abs(v) for v in nonzero_finite]
        mn, mx = min(absolute), max(absolute)
        for v in nonzero_finite:
            if v != math.ceil(v):
                self.int_mode = False
                break
        if _opts["sci_mode"] is None:
            self.sci_mode = mx / mn > 1000.0 or mx > 1.0e8 or mn < 1.0e-4
        else:
            self.sci_mode = bool(_opts["sci_mode"])
        if self.sci_mode:
            fmt, extra = "{:.%de}" % p, 0
        elif self.int_mode:
            fmt, extra = "{:.0f}", 1  # room for the trailing "."
        else:
            fmt, extra = "{:.%df}" % p, 0
        for v in nonzero_finite:
            self.max_width = max(self.max_width, len(fmt.format(v)) + extra)

    def width(self):
        return self.max_width

    def format(self, value):
        p = _opts["precision"]
        if self.floating_dtype:
            if self.sci_mode:
                ret = ("{:%d.%de}" % (self.max_width, p)).format(value)
            elif self.int_mode:
                ret = "{:.0f}".format(value)
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = ("{:.%df}" % p).format(value)
        else:
            ret = "{}".format(value)
        return (self.max_width - len(ret)) * " " + ret


def _value_str(v, f1, f2):
    if f2 is None:
        return f1.format(v)
    real_str = f1.format(v.real)
    imag_str = (f2.format(v.imag) + "j").lstrip()
    # handles negative numbers, +0.0, -0.0
    if imag_str[0] == "+" or imag_str[0] == "-":
        return real_str + imag_str
    return real_str + "+" + imag_str


def _vector_str(values, indent, summarize, f1, f2):
    element_length = f1.width() + 2
    if f2 is not None:
        element_length += f2.width() + 1
    per_line = max(1, math.floor((_opts["linewidth"] - indent)
                                 / element_length))
    if summarize and not _opts["edgeitems"]:
        data = ["..."]
    else:
        data = [" ..." if v is None else _value_str(v, f1, f2)
                for v in values]
    lines = [", ".join(data[i:i + per_line])
             for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _nested_str(v, ndim, indent, summarize, f1, f2):
    if ndim == 0:
        return _value_str(v, f1, f2)
    if ndim == 1:
        return _vector_str(v, indent, summarize, f1, f2)
    slices = ["..." if x is None
              else _nested_str(x, ndim - 1, indent + 1, summarize, f1, f2)
              for x in v]
    return "[" + ("," + "\n" * (ndim - 1) + " " * (indent + 1)).join(
        slices) + "]"


def _tensor_str(t, indent):
    summarize = t.numel() > _opts["threshold"]
    nested = (_summarize_list(t, _opts["edgeitems"]) if summarize
              else t.tolist())
    flat = []
    _flatten(nested, flat)
    dt = t.dtype
    if dt.is_complex:
        f1 = _Formatter([v.real for v in flat], True)
        f2 = _Formatter([v.imag for v in flat], True)
    else:
        f1 = _Formatter(flat, dt.is_floating_point)
        f2 = None
    return _nested_str(nested, t.ndim, indent, summarize, f1, f2)


def _add_suffixes(tensor_str, suffixes, indent, force_newline):
    tensor_strs = [tensor_str]
    last_line_len = len(tensor_str) - tensor_str.rfind("\n") + 1
    for suffix in suffixes:
        suffix_len = len(suffix)
        if (force_newline
                or last_line_len + suffix_len + 2 > _opts["linewidth"]):
            tensor_strs.append(",\n" + " " * indent + suffix)
            last_line_len = indent + suffix_len
            force_newline = False
        else:
            tensor_strs.append(", " + suffix)
            last_line_len += suffix_len + 2
    tensor_strs.append(")")
    return "".join(tensor_strs)


def tensor_repr(t):
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    name = t.dtype.name
    if t.device.type != "cpu":
        suffixes.append("device='{}'".format(t.device))
    if t.numel() == 0:
        # The shape is shown unless it is (0,), as NumPy does; the dtype
        # unless it is the default float, since no value shows it.
        if t.ndim != 1:
            suffixes.append("size={}".format(tuple(t.shape)))
        if name != _DEFAULT_DTYPE:
            suffixes.append("dtype=tensorlib.{}".format(name))
        body = "[]"
    else:
        if not _opts["edgeitems"]:
            suffixes.append("size={}".format(tuple(t.shape)))
        if name not in _HIDDEN:
            suffixes.append("dtype=tensorlib.{}".format(name))
        # Device tensors print from a host copy (the values, not memory).
        try:
            body = _tensor_str(t.cpu() if t.device.type != "cpu" else t,
                               indent)
        except RuntimeError as e:
            # A workspace tensor whose arena was reset or closed, or a view
            # past the end of a storage shrunk under it, has no values to
            # show; repr (called by debuggers and notebooks) says why
            # instead of raising.  Every other touch still raises.
            if "workspace" not in str(e) and "was shrunk" not in str(e):
                raise
            body = "<{}>".format(e)
            if "size=" not in "".join(suffixes):
                suffixes.insert(0, "size={}".format(tuple(t.shape)))
    return _add_suffixes(prefix + body, suffixes, indent, False)


def set_printoptions(precision=None, threshold=None, edgeitems=None,
                     linewidth=None, profile=None, sci_mode=None):
    """Set the options used by repr(tensor), as torch.set_printoptions."""
    profiles = {
        "default": (4, 1000, 3, 80),
        "short": (2, 1000, 2, 80),
        "full": (4, math.inf, 3, 80),
    }
    if profile is not None:
        if profile not in profiles:
            raise ValueError("unknown print profile {!r}: expected one of "
                             "{}".format(profile, sorted(profiles)))
        (_opts["precision"], _opts["threshold"], _opts["edgeitems"],
         _opts["linewidth"]) = profiles[profile]
    for k, v in (("precision", precision), ("threshold", threshold),
                 ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if v is not None:
            _opts[k] = v
    _opts["sci_mode"] = sci_mode


def get_printoptions():
    """The current print options, as a dict set_printoptions accepts."""
    return dict(_opts)
