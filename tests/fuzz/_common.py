"""Shared set-up of the atheris harnesses in tests/fuzz/.

Each harness defines ``TestOneInput(data: bytes)`` and calls ``main()``.
The rule every harness checks: a parser of untrusted input either succeeds
(and the result is then used: read, copied, printed) or raises one of the
documented exception classes (DESIGN.md "Errors").  Anything else - a
crash, a sanitizer report, an unexpected exception class - is a finding.

atheris is imported with RTLD_GLOBAL so that an extension built with
``-fsanitize=fuzzer-no-link`` (setup.py TENSORLIB_FUZZ=1) finds libFuzzer's
coverage callbacks in atheris' own libFuzzer; with the normal build atheris
still instruments the Python side (tensorlib/*.py).
"""
import os
import sys

if os.environ.get("TENSORLIB_FUZZ_REPLAY"):
    # Replaying inputs in the test suite (tests/test_fuzz_regressions.py):
    # the FuzzedDataProvider without atheris' libFuzzer, which would
    # otherwise sit beside the sanitizer runtime of the sanitizer run.
    import atheris_no_libfuzzer as atheris  # noqa: E402
else:
    _flags = sys.getdlopenflags()
    sys.setdlopenflags(os.RTLD_NOW | os.RTLD_GLOBAL)
    try:
        import atheris  # noqa: E402
    finally:
        sys.setdlopenflags(_flags)

# The exceptions a hostile input may raise (ShapeError subclasses both
# ValueError and RuntimeError).  MemoryError: a hostile size may ask for
# more memory than there is.
EXPECTED = (ValueError, TypeError, IndexError, RuntimeError, OverflowError,
            BufferError, MemoryError, ZeroDivisionError, KeyError)


def import_tensorlib():
    """tensorlib, its Python modules instrumented by atheris."""
    with atheris.instrument_imports(include=["tensorlib"]):
        import tensorlib
    return tensorlib


def main(test_one_input):
    """Runs the fuzzer with libFuzzer's command line (sys.argv): e.g.
    ``python tests/fuzz/fuzz_einsum.py -max_total_time=60 corpus_dir``."""
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


def touch(t):
    """Uses every element of a tensor that an import produced, so that a
    bad extent is read (and caught by ASan in the fuzz build).  MemoryError
    is allowed (a nested tolist() of many empty lists may not fit)."""
    # tolist of a (2**62, 0) tensor builds 2**62 empty lists, and of an
    # empty (4,) * 12 + (0,) one 4**12 lists (a fuzz_array_interface
    # timeout): both as slow in NumPy, so such shapes are not listed
    lists, prod = 1, 1
    for n in t.shape[:-1]:
        prod *= n
        lists += prod
        if prod == 0:
            break
    if t.numel() <= 1 << 16 and lists <= 1 << 16 and \
            all(n <= 1 << 16 for n in t.shape):
        try:
            t.clone()
            t.tolist()
            # repr() formats in Python, which atheris instruments: at
            # up to 2**16 elements, or a (1, 4, 4, 3, 4, 3) + (1,) * 27
            # tensor's 44,000 nested lists (200 KB of text, 0.5 s; NumPy
            # takes half that), it cost 10-500 ms an input, and
            # fuzz_array_interface, finding such shapes, slowed from
            # 5000 inputs/s to 300 and ran into CI's guard.  Small
            # tensors still print.
            if t.numel() <= 1024 and lists <= 256:
                repr(t)
        except MemoryError:
            return
        try:
            t.sum()
        except EXPECTED:
            pass
