#!/usr/bin/env bash
# Coverage of the C code (issue 23): a gcov build (gcc --coverage, -O0)
# of the core and the extension, run by the C tests, pytest (with torch
# installed, so the comparison tests run) and the emulated-CUDA tests
# together; gcovr then reports line and branch percentages per file with
# the uncovered lines listed.  docs/coverage.md keeps the latest numbers.
#   tools/coverage.sh [PYTEST_ARGS...]   e.g. tools/coverage.sh -m "not slow"
# Environment: PYTHON (default python), JOBS (default 2), COV_TESTS (the
# pytest paths, default all of tests/; for a quick partial measurement),
# COV_MIN_LINES / COV_MIN_BRANCHES (percentages: fail below them),
# SHARDS (default 1: the pytest runs as that many processes at once,
# tools/pytest_shards.sh; gcov merges their counters under a file lock).
# COV_BUILD_ONLY=1 builds (steps 1-3, the C tests built but not run) and
# stops; COV_PREBUILT=1 keeps what build-cov*/ hold instead of starting
# afresh (CI builds ahead in the background: .ci/prebuild), and the steps
# below then find it up to date.  Nothing may have run that build yet:
# its counters would count.
# Reports: build-cov/coverage-lines.txt, build-cov/coverage-branches.txt,
# build-cov/coverage-summary.json; the totals are printed.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PY=${PYTHON:-python}
JOBS=${JOBS:-2}
SHARDS=${SHARDS:-1}
GCOVR=${GCOVR:-$(dirname "$PY")/gcovr}
command -v "$GCOVR" >/dev/null 2>&1 || GCOVR=gcovr
[ -n "${COV_PREBUILT:-}" ] || rm -rf build-cov build-cov-cuda
# pytest runs from /tmp (so it imports the coverage build, not the source
# tree): COV_TESTS paths relative to the checkout are made absolute.
COV_ABS=()
for t in ${COV_TESTS:-}; do
    case $t in /*) COV_ABS+=("$t") ;; *) COV_ABS+=("$ROOT/$t") ;; esac
done
[ ${#COV_ABS[@]} -gt 0 ] || COV_ABS=("$ROOT/tests")
set -e
# 1. the C core and its tests (their counters land in build-cov/csrc).
make -s COV=1 -j"$JOBS" PYTHON="$PY" ctest-bin
[ -n "${COV_BUILD_ONLY:-}" ] ||
    make -s COV=1 -j"$JOBS" --output-sync=target PYTHON="$PY" ctest
# 2. the extension, beside a copy of the package.  Both extensions link
#    step 1's objects of the core (setup.py TENSORLIB_CORE_OBJECTS), so
#    the core is compiled once and every suite's counters for it land in
#    the same build-cov/csrc/*.gcda.
export TENSORLIB_CORE_OBJECTS="$ROOT/build-cov"
TENSORLIB_COVERAGE=1 "$PY" setup.py -q build_ext --build-lib build-cov/pylib \
    --build-temp build-cov/ext -j "$JOBS"
cp tensorlib/*.py tensorlib/*.pyi tensorlib/py.typed build-cov/pylib/tensorlib/
# 3. the emulated CUDA build (csrc/python/cuda.c and the plug-in's C).
TENSORLIB_CUDA=emulate TENSORLIB_COVERAGE=1 "$PY" setup.py -q build_ext \
    --build-lib build-cov-cuda/pylib --build-temp build-cov-cuda/ext -j "$JOBS"
cp tensorlib/*.py tensorlib/*.pyi tensorlib/py.typed build-cov-cuda/pylib/tensorlib/
[ -z "${COV_BUILD_ONLY:-}" ] || exit 0
set +e
rc=0
# 4. pytest against the coverage build (test_c_core.py rebuilds and runs
#    the C tests of step 1 in the normal build: left out).
#    TENSORLIB_EXPECT_ROOT makes conftest.py refuse any other tensorlib
#    (the editable install's in-place build would count nothing).
(cd /tmp && PYTHONPATH="$ROOT/build-cov/pylib" TENSORLIB_REQUIRE_TORCH=1 \
    TENSORLIB_EXPECT_ROOT="$ROOT/build-cov/pylib" \
    "$ROOT/tools/pytest_shards.sh" "$SHARDS" \
    "$PY" -m pytest -q -p no:cacheprovider "$@" \
    --ignore="$ROOT/tests/test_c_core.py" "${COV_ABS[@]}") || rc=1
# 5. the GPU tests over the emulated CUDA runtime, and its injected faults.
(cd /tmp && PYTHONPATH="$ROOT/build-cov-cuda/pylib" \
    TENSORLIB_EXPECT_ROOT="$ROOT/build-cov-cuda/pylib" \
    TENSORLIB_EXPECT_CUDA=emulate "$ROOT/tools/pytest_shards.sh" "$SHARDS" \
    "$PY" -m pytest -q -p no:cacheprovider \
    "$ROOT/tests/test_cuda.py" "$ROOT/tests/test_cuda_faults.py") || rc=1
# 6. the report.  Threads make gcov's counters racy: negative counts are
#    read as zero, with one warning per file.  The three builds compile
#    the same sources with different macros: functions merge separately.
GOPTS=(--root "$ROOT" --filter "$ROOT/csrc/" \
       --gcov-ignore-parse-errors=negative_hits.warn_once_per_file \
       --merge-mode-functions=separate -j "$JOBS" \
       build-cov build-cov-cuda)
"$GCOVR" "${GOPTS[@]}" --txt build-cov/coverage-lines.txt \
    --txt-metric line --json-summary-pretty \
    --json-summary build-cov/coverage-summary.json --print-summary
"$GCOVR" "${GOPTS[@]}" --txt build-cov/coverage-branches.txt \
    --txt-metric branch
echo "reports: build-cov/coverage-lines.txt build-cov/coverage-branches.txt" \
     "build-cov/coverage-summary.json"
[ $rc -eq 0 ] || echo "coverage: some tests failed under the coverage build"
# 7. the floors (CI's coverage phase sets them: a change that drops the
#    totals below the last measured numbers fails there).
if [ -n "${COV_MIN_LINES:-}${COV_MIN_BRANCHES:-}" ]; then
    "$PY" - "${COV_MIN_LINES:-0}" "${COV_MIN_BRANCHES:-0}" <<'PYEOF' || rc=1
import json, sys
s = json.load(open("build-cov/coverage-summary.json"))
ok = True
for key, floor in (("line_percent", sys.argv[1]),
                   ("branch_percent", sys.argv[2])):
    got = float(s[key])
    if got < float(floor):
        print(f"coverage: {key} {got:.1f} is below the floor {floor}")
        ok = False
    else:
        print(f"coverage: {key} {got:.1f} (floor {floor})")
sys.exit(0 if ok else 1)
PYEOF
fi
exit $rc
