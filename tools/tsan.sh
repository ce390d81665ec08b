#!/usr/bin/env bash
# ThreadSanitizer run (issue 23 "Data races"): the C core and the
# extension built with -fsanitize=thread (make TSAN=1, setup.py
# TENSORLIB_TSAN=1, both into build-tsan/), then
#   1. the threaded C tests: the allocator and pool stress with 8 threads
#      (test_memory_stress), the arena's thread tests and plans
#      (test_arena), the stream pools, the allocator registry;
#   2. tests/test_threads.py against the TSan extension: Python threads
#      running ops on shared and disjoint views with the GIL released,
#      beside tensorlib's intra-op threads; generators shared between
#      threads; resize_/set_ racing with readers; workspaces and plans
#      from several threads.
# Any report fails the run (halt_on_error).  tools/tsan.supp holds the
# suppressions, only for code that is not instrumented (CPython, NumPy,
# OpenBLAS), each explained.
#   tools/tsan.sh            (PYTHON=... to pick the interpreter)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python}
JOBS=${JOBS:-2}
# (tests/c/test_pool.c also passes under TSan but takes ~2 min there: run
#  it with CTESTS=... when changing the pool)
CTESTS=${CTESTS:-"test_memory_stress test_arena test_pool_streams test_alloc"}

make -s TSAN=1 -j"$JOBS" PYTHON="$PY" \
    $(for t in $CTESTS; do echo "build-tsan/tests/$t"; done)
# (the extension links the core's objects that make just built: setup.py
# TENSORLIB_CORE_OBJECTS)
TENSORLIB_TSAN=1 TENSORLIB_CORE_OBJECTS="$ROOT/build-tsan" "$PY" setup.py \
    -q build_ext --build-lib build-tsan/pylib --build-temp build-tsan/ext \
    -j "$JOBS"
cp tensorlib/*.py tensorlib/*.pyi tensorlib/py.typed build-tsan/pylib/tensorlib/

# TSan's shadow memory needs the classic address-space layout: kernels
# with more mmap randomisation than it expects crash it at start-up
# (a bare SIGSEGV), so the programs run with ASLR off.
NOASLR=()
if setarch "$(uname -m)" -R true 2>/dev/null; then
    NOASLR=(setarch "$(uname -m)" -R)
fi
export TSAN_OPTIONS="halt_on_error=1 exitcode=66 second_deadlock_stack=1 \
suppressions=$ROOT/tools/tsan.supp"
for t in $CTESTS; do
    echo "== tsan: $t"
    "${NOASLR[@]}" "build-tsan/tests/$t"
done

echo "== tsan: tests/test_threads.py"
cd /tmp
LD_PRELOAD="$(gcc -print-file-name=libtsan.so)" \
    PYTHONPATH="$ROOT/build-tsan/pylib" TENSORLIB_EXPECT_TSAN=1 \
    "${NOASLR[@]}" "$PY" -m pytest -q -p no:cacheprovider \
    "$ROOT/tests/test_threads.py"
echo "tsan: no reports"
