"""Builds the extension module tensorlib._C from csrc/.

Environment:
  TENSORLIB_SANITIZE=1  build with AddressSanitizer + UndefinedBehaviorSanitizer
  TENSORLIB_DEBUG=1     keep TL_ASSERT checks and build without optimisation
"""
import glob
import os

import numpy
from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def sources():
    out = []
    for layer in ("alloc", "core", "python"):
        out += sorted(glob.glob(os.path.join("csrc", layer, "*.c")))
    return out


def flag(name):
    return os.environ.get(name, "") not in ("", "0")


compile_args = [
    "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
    "-Wno-missing-field-initializers", "-fvisibility=hidden",
]
link_args = []
macros = [("TL_BUILDING_LIB", "1"), ("_GNU_SOURCE", "1")]
if flag("TENSORLIB_SANITIZE"):
    san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
           "-fsanitize=float-cast-overflow", "-fno-omit-frame-pointer"]
    compile_args += san + ["-O1", "-g"]
    link_args += san
else:
    compile_args += ["-O2", "-g0"]
if flag("TENSORLIB_DEBUG"):
    macros.append(("TL_DEBUG", "1"))

ext = Extension(
    "tensorlib._C",
    sources=sources(),
    include_dirs=[os.path.join("csrc", "include"), numpy.get_include()],
    define_macros=macros,
    extra_compile_args=compile_args,
    extra_link_args=link_args,
    libraries=["m", "pthread"],
    depends=glob.glob(os.path.join("csrc", "**", "*.h"), recursive=True),
)

setup(ext_modules=[ext])
