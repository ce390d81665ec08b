"""Loads scipy-openblas64's library, privately, before tensorlib._C.

The extension names ``libscipy_openblas64_`` as a dependency without a
path into the environment, so the library must be in the process before
``_C`` loads; the dynamic loader then matches ``_C``'s dependency to it by
name.  ``import scipy_openblas64`` would load it too, but with
RTLD_GLOBAL: its OpenBLAS-internal symbols (kernels, thread pool), which
carry no prefix or suffix, then take precedence over those of SciPy's own
(32-bit index) OpenBLAS for every library loaded later, and
``scipy.linalg.svd`` imported after tensorlib failed with "Too large work
array required" (scikit-learn's PCA and LDA run into it).  Loading it
RTLD_LOCAL keeps its symbols to the objects that link it: ``_C`` (and
libtensorlib).  Windows and macOS have no global symbol namespace of that
kind; there the package's own import is used.
"""
import ctypes
import importlib.util
import os
import sys

_lib = None


def _load():
    global _lib
    if sys.platform in ("win32", "darwin"):
        import scipy_openblas64  # noqa: F401 - loads the library itself

        return
    spec = importlib.util.find_spec("scipy_openblas64")
    if spec is None or not spec.submodule_search_locations:
        raise ImportError("tensorlib needs the scipy-openblas64 package "
                          "(pip install scipy-openblas64)")
    libdir = os.path.join(list(spec.submodule_search_locations)[0], "lib")
    name = "libscipy_openblas64_.so"
    path = os.path.join(libdir, name)
    if not os.path.exists(path):
        found = sorted(n for n in os.listdir(libdir)
                       if n.startswith("libscipy_openblas64_") and
                       ".so" in n)
        if not found:
            raise ImportError("scipy-openblas64 has no {} in {}".format(
                name, libdir))
        path = os.path.join(libdir, found[0])
    _lib = ctypes.CDLL(path, mode=os.RTLD_LOCAL)


_load()
