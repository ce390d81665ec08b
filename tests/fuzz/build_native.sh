#!/usr/bin/env bash
# Builds the extension for native coverage-guided fuzzing: clang with
# -fsanitize=fuzzer-no-link,address (setup.py TENSORLIB_FUZZ=1) into
# build-fuzz/pylib, beside a copy of the Python package.  Then:
#   FUZZ_BUILD=native tests/fuzz/run_all.sh 60 2
set -euo pipefail
cd "$(dirname "$0")/../.."
PY=${PYTHON:-python}
CC=clang LDSHARED="clang -shared" TENSORLIB_FUZZ=1 "$PY" setup.py -q \
    build_ext --build-lib build-fuzz/pylib --build-temp build-fuzz/ext \
    -j "${JOBS:-2}"
cp tensorlib/*.py tensorlib/*.pyi tensorlib/py.typed build-fuzz/pylib/tensorlib/
