"""Builds the extension module tensorlib._C from csrc/.

Environment:
  TENSORLIB_SANITIZE=1  build with AddressSanitizer + UndefinedBehaviorSanitizer
  TENSORLIB_DEBUG=1     keep TL_ASSERT checks and build without optimisation
  TENSORLIB_CUDA=1      add the CUDA plug-in (csrc/cuda): the .cu files are
                        compiled by nvcc, cudart is linked statically.  The
                        default build is CPU-only and never needs nvcc.
  TENSORLIB_CUDA=emulate
                        the CUDA plug-in with the CUDA runtime emulated on
                        the host (a test build for machines without a GPU:
                        Note [CUDA host emulation] in csrc/cuda/launch.cuh)
  TENSORLIB_CUDA_ARCHS  GPU targets for nvcc: "80" (the default: one
                        -gencode, sm_80), a list such as "80;90", or "all"
                        (every architecture CUDA 13 supports, plus PTX)
  CUDA_HOME             where CUDA lives (default: found from nvcc)
  TENSORLIB_TSAN=1, TENSORLIB_COVERAGE=1, TENSORLIB_FUZZ=1
                        ThreadSanitizer / gcov / atheris builds (issue 23)
  TENSORLIB_OBJ_CACHE   a directory: C objects are kept there by the hash of
                        their preprocessed source and compile flags, and a
                        later build with the same ones copies them instead
                        of compiling (CI: the CUDA builds reuse the normal
                        build's core; Note [Object cache] below)
  TENSORLIB_CORE_OBJECTS
                        a directory where the Makefile built the C core
                        (csrc/core and csrc/alloc): the extension links its
                        objects instead of compiling those files again.
                        They must be made with the same options: CI's
                        sanitizer phase links build-san/ (make SAN=1) into
                        the TENSORLIB_SANITIZE=1 build
"""
import glob
import hashlib
import os
import shutil
import subprocess
import threading
from concurrent.futures import ThreadPoolExecutor

import numpy
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

HERE = os.path.dirname(os.path.abspath(__file__))


def flag(name):
    return os.environ.get(name, "") not in ("", "0")


CUDA = os.environ.get("TENSORLIB_CUDA", "").strip().lower()
if CUDA in ("", "0", "off", "no", "false"):
    CUDA = ""
elif CUDA != "emulate":
    CUDA = "nvcc"


CORE_LAYERS = ("alloc", "core")
CORE_OBJECTS = os.environ.get("TENSORLIB_CORE_OBJECTS", "")


def sources():
    out = []
    layers = CORE_LAYERS + ("python",) + (("cuda",) if CUDA else ())
    for layer in layers:
        if not (CORE_OBJECTS and layer in CORE_LAYERS):
            out += sorted(glob.glob(os.path.join("csrc", layer, "*.c")))
    return out


def core_objects():
    """The Makefile's objects of the C core under TENSORLIB_CORE_OBJECTS
    (its rule: DIR/csrc/core/x.o from csrc/core/x.c), or [] when unset."""
    if not CORE_OBJECTS:
        return []
    out = []
    for layer in CORE_LAYERS:
        for src in sorted(glob.glob(os.path.join("csrc", layer, "*.c"))):
            obj = os.path.join(CORE_OBJECTS, src[:-2] + ".o")
            if not os.path.exists(obj):
                raise SystemExit(
                    "TENSORLIB_CORE_OBJECTS={}: no object {} for {} (build "
                    "the core there first: make SAN=1 all for build-san)"
                    .format(CORE_OBJECTS, obj, src))
            out.append(obj)
    return out


compile_args = [
    "-std=c11", "-Wall", "-Wextra", "-Wno-unused-parameter",
    "-Wno-missing-field-initializers", "-fvisibility=hidden",
]
link_args = []
macros = [("TL_BUILDING_LIB", "1"), ("_GNU_SOURCE", "1")]
san = []
if flag("TENSORLIB_SANITIZE"):
    san = ["-fsanitize=address,undefined", "-fno-sanitize-recover=all",
           "-fsanitize=float-cast-overflow", "-fno-omit-frame-pointer"]
    # (-fno-wrapv: Python's CFLAGS make signed overflow wrap, which would
    # keep UBSan from checking the binding's signed arithmetic)
    compile_args += san + ["-O1", "-g", "-fno-wrapv"]
    link_args += san
else:
    compile_args += ["-O2", "-g0"]
if flag("TENSORLIB_DEBUG"):
    macros.append(("TL_DEBUG", "1"))
# Issue 23 builds (tests/fuzz/README.md, tools/tsan.sh, tools/coverage.sh):
#   TENSORLIB_TSAN=1      ThreadSanitizer
#   TENSORLIB_COVERAGE=1  gcov counters (gcc --coverage, -O0)
#   TENSORLIB_FUZZ=1      clang -fsanitize=fuzzer-no-link,address: native
#                         coverage for atheris (needs CC=clang, LDSHARED)
if flag("TENSORLIB_TSAN"):
    # (no target_clones: their ifunc resolvers run before TSan is set up)
    compile_args += ["-fsanitize=thread", "-O1", "-g",
                     "-fno-omit-frame-pointer", "-DTL_NO_TARGET_CLONES"]
    link_args += ["-fsanitize=thread"]
if flag("TENSORLIB_COVERAGE"):
    # (no target_clones: one copy of each multiversioned function, so that
    # a line counts as reached when its code ran, not once per ISA clone)
    compile_args += ["--coverage", "-O0", "-g", "-DTL_NO_TARGET_CLONES"]
    link_args += ["--coverage"]
if flag("TENSORLIB_FUZZ"):
    # glibc defines CMPLX only for gcc >= 4.7; clang has the builtin.
    compile_args += ["-fsanitize=fuzzer-no-link,address", "-shared-libasan",
                     "-O1", "-g", "-fno-omit-frame-pointer",
                     "-DCMPLX(x,y)=__builtin_complex((double)(x),(double)(y))",
                     "-DCMPLXF(x,y)=__builtin_complex((float)(x),(float)(y))"]
    link_args += ["-fsanitize=fuzzer-no-link,address", "-shared-libasan"]

# ---- CUDA -------------------------------------------------------------------

# Every architecture CUDA 13 compiles for (Turing and newer), with PTX of
# the newest so that later GPUs can JIT it.
ALL_ARCHS = ["75", "80", "86", "89", "90", "100", "120"]


def cuda_home():
    for env in ("CUDA_HOME", "CUDA_PATH"):
        if os.environ.get(env):
            return os.environ[env]
    nvcc = shutil.which("nvcc")
    candidates = []
    if nvcc:
        candidates.append(os.path.dirname(os.path.dirname(
            os.path.realpath(nvcc))))
    candidates += ["/usr/local/cuda"] + sorted(
        glob.glob("/usr/local/cuda-*"), reverse=True)
    for c in candidates:
        if os.path.exists(os.path.join(c, "include", "cuda_runtime_api.h")):
            return c
    raise SystemExit("TENSORLIB_CUDA=1: cannot find the CUDA toolkit "
                     "(set CUDA_HOME)")


def gencode_flags():
    spec = os.environ.get("TENSORLIB_CUDA_ARCHS", "80").strip()
    archs = ALL_ARCHS if spec == "all" else [
        a.strip().replace("sm_", "").replace(".", "")
        for a in spec.replace(",", ";").split(";") if a.strip()]
    out = []
    for a in archs:
        out += ["-gencode", "arch=compute_{0},code=sm_{0}".format(a)]
    if spec == "all":
        out += ["-gencode", "arch=compute_{0},code=compute_{0}".format(
            archs[-1])]
    return out


include_dirs = [os.path.join("csrc", "include"), numpy.get_include()]
libraries = ["m", "pthread"]
library_dirs = []
if CUDA:
    macros.append(("TL_WITH_CUDA", "1"))
    libraries.append("stdc++")
if CUDA == "emulate":
    macros.append(("TL_CUDA_EMULATE", "1"))
elif CUDA == "nvcc":
    CUDA_HOME = cuda_home()
    include_dirs.append(os.path.join(CUDA_HOME, "include"))
    library_dirs.append(os.path.join(CUDA_HOME, "lib64"))
    # cudart linked statically: the wheel needs no CUDA toolkit, only a
    # driver (libcuda.so, which cudart opens at run time).
    libraries += ["cudart_static", "dl", "rt"]


# BLAS and LAPACK: scipy-openblas64, linked by name; tensorlib/__init__.py
# imports scipy_openblas64 (which loads the library globally) before _C,
# so no rpath into the build environment is needed.
import scipy_openblas64  # noqa: E402

include_dirs.append(scipy_openblas64.get_include_dir())
library_dirs.append(scipy_openblas64.get_lib_dir())
libraries.append(scipy_openblas64.get_library())


# Note [Object cache]
# ~~~~~~~~~~~~~~~~~~~
# CI builds the extension three times with the same optimisation flags:
# the README's editable install, then the emulated-CUDA and the nvcc
# builds, which differ only in -D macros (TL_WITH_CUDA, TL_CUDA_EMULATE)
# that no file of csrc/core or csrc/alloc tests, and in include paths.
# Each of those builds compiled the whole core again (some 200 CPU-seconds
# at -O2).  With TENSORLIB_OBJ_CACHE set, an object is filed under the
# SHA-256 of: the compiler's --version, the source's path, the compile
# command without its -D/-U/-I options, and the source preprocessed with
# the full command (gcc -E -P: the macros and headers as they came out,
# without the line markers that name the include directories).  Two
# compiles with the same key produce the same object, so a later build
# copies it.  Only -g0 builds without --coverage are kept: debug
# information names the headers' directories, and gcov writes a notes file
# beside the object and bakes its path into it.  Objects are written to a
# temporary name and renamed, so concurrent builds can share the directory.


class ObjectCache:
    """The object cache of one compile() call (Note [Object cache]); a
    no-op when `directory` is empty."""

    _versions = {}

    def __init__(self, compiler, directory):
        self.compiler = compiler
        self.dir = directory or None
        self.hits = 0
        if self.dir:
            os.makedirs(self.dir, exist_ok=True)

    def key(self, src, cc_args, extra_postargs):
        """The object's key, or None when it is not to be cached."""
        if not self.dir:
            return None
        cmd = list(self.compiler.compiler_so) + [
            a for a in cc_args if a != "-c"] + list(extra_postargs)
        debug = [a for a in cmd if a.startswith("-g")]
        if "--coverage" in cmd or not debug or debug[-1] != "-g0":
            return None
        try:
            text = subprocess.run(cmd + ["-E", "-P", src], check=True,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL).stdout
            if cmd[0] not in self._versions:
                self._versions[cmd[0]] = subprocess.run(
                    [cmd[0], "--version"], check=True,
                    stdout=subprocess.PIPE).stdout
        except (OSError, subprocess.CalledProcessError):
            return None     # the compile itself will say what is wrong
        h = hashlib.sha256(self._versions[cmd[0]])
        flags = [a for a in cmd if not a.startswith(("-D", "-U", "-I"))]
        h.update("\0".join(flags + [src]).encode() + b"\0\0")
        h.update(text)
        return h.hexdigest()

    def fetch(self, key, obj):
        """Copies the object filed under `key` to `obj`; False if none."""
        if key is None:
            return False
        try:
            self._copy(os.path.join(self.dir, key + ".o"), obj)
        except OSError:
            return False
        self.hits += 1
        return True

    def store(self, key, obj):
        if key is not None:
            self._copy(obj, os.path.join(self.dir, key + ".o"))

    def report(self, total):
        if self.dir:
            print("object cache: {} of {} objects reused from {}".format(
                self.hits, total, self.dir), flush=True)

    @staticmethod
    def _copy(src, dst):
        os.makedirs(os.path.dirname(dst) or ".", exist_ok=True)
        tmp = "{}.tmp{}.{}".format(dst, os.getpid(), threading.get_ident())
        try:
            shutil.copyfile(src, tmp)
            os.replace(tmp, dst)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


def parallel_compile(compiler, jobs):
    """Makes compiler.compile build the sources of one extension on `jobs`
    threads (setuptools' -j only runs whole extensions side by side, and
    tensorlib is one extension of some 80 C files).  Uses the compiler's
    _setup_compile / _get_cc_args / _compile steps, which compile() itself
    is made of; a compiler without them keeps its serial compile."""
    cached = bool(os.environ.get("TENSORLIB_OBJ_CACHE"))
    if (jobs < 2 and not cached) or not all(hasattr(compiler, m) for m in (
            "_setup_compile", "_get_cc_args", "_compile")):
        return

    def compile(sources, output_dir=None, macros=None, include_dirs=None,
                debug=False, extra_preargs=None, extra_postargs=None,
                depends=None):
        macros, objects, extra_postargs, pp_opts, build = \
            compiler._setup_compile(output_dir, macros, include_dirs,
                                    sources, depends, extra_postargs)
        cc_args = compiler._get_cc_args(pp_opts, debug, extra_preargs)

        def one(obj):
            if obj in build:
                src, ext = build[obj]
                key = cache.key(src, cc_args, extra_postargs)
                if cache.fetch(key, obj):
                    return
                compiler._compile(obj, src, ext, cc_args, extra_postargs,
                                  pp_opts)
                cache.store(key, obj)

        cache = ObjectCache(compiler, os.environ.get("TENSORLIB_OBJ_CACHE"))
        with ThreadPoolExecutor(max_workers=jobs) as ex:
            list(ex.map(one, objects))
        cache.report(len(build))
        return objects

    compiler.compile = compile


class BuildExt(build_ext):
    """Compiles the C sources on every core, and csrc/cuda/*.cu (nvcc, or
    the host C++ compiler for the emulated build) in parallel into objects
    linked into the extension."""

    def cu_command(self, src, obj):
        defs = ["-D{}={}".format(k, v) for k, v in macros]
        incs = ["-I" + os.path.join(HERE, "csrc", d)
                for d in ("include", "cuda")]
        if CUDA == "emulate":
            cxx = os.environ.get("CXX", "g++")
            return ([cxx, "-x", "c++", "-std=c++17", "-c", src, "-o", obj,
                     "-fPIC", "-fvisibility=hidden", "-ffp-contract=off",
                     "-Wall", "-Wextra", "-Wno-unused-parameter",
                     "-Wno-missing-field-initializers"] +
                    (san + ["-O1", "-g"] if san else ["-O2"]) + defs + incs)
        return (["nvcc", "-c", src, "-o", obj, "-std=c++17", "-O3",
                 "--fmad=false", "--expt-relaxed-constexpr",
                 "-Xcompiler", "-fPIC", "-Xcompiler", "-fvisibility=hidden",
                 "-Xcompiler", "-ffp-contract=off"] + gencode_flags() +
                defs + incs)

    def build_extensions(self):
        parallel_compile(self.compiler,
                         int(self.parallel or 0) or os.cpu_count() or 1)
        if CUDA:
            cus = sorted(glob.glob(os.path.join(HERE, "csrc", "cuda",
                                                "*.cu")))
            out_dir = os.path.join(os.path.abspath(self.build_temp), "cuda")
            os.makedirs(out_dir, exist_ok=True)
            jobs = []
            for src in cus:
                obj = os.path.join(out_dir, os.path.basename(src) + ".o")
                deps = [src] + glob.glob(os.path.join(HERE, "csrc", "**",
                                                      "*.h*"), recursive=True)
                if (self.force or not os.path.exists(obj) or
                        os.path.getmtime(obj) <
                        max(os.path.getmtime(d) for d in deps)):
                    jobs.append(self.cu_command(src, obj))
                for ext in self.extensions:
                    ext.extra_objects.append(obj)
                    # a rebuilt object relinks the extension
                    ext.depends.append(obj)

            def run(cmd):
                print(" ".join(cmd), flush=True)
                subprocess.check_call(cmd, cwd=HERE)

            with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as ex:
                for f in [ex.submit(run, c) for c in jobs]:
                    f.result()
        super().build_extensions()


ext = Extension(
    "tensorlib._C",
    sources=sources(),
    include_dirs=include_dirs,
    define_macros=macros,
    extra_compile_args=compile_args,
    extra_link_args=link_args,
    libraries=libraries,
    library_dirs=library_dirs,
    extra_objects=core_objects(),
    # (a rebuilt core object relinks the extension)
    depends=glob.glob(os.path.join("csrc", "**", "*.h"), recursive=True) +
    core_objects(),
)

setup(ext_modules=[ext], cmdclass={"build_ext": BuildExt})
