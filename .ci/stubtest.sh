#!/usr/bin/env bash
# Checks the type stubs (tensorlib/*.pyi) against the built extension with
# mypy.stubtest: a function, method or parameter added, removed or renamed in
# C without the stubs following (or the reverse) fails here.  The C
# functions' __text_signature__ docstrings are what stubtest compares with.
#
# Works against whichever tensorlib `$PYTHON` imports: the editable install
# of CI (`pip install -e .`, the extension built into the source tree) or a
# build directory on PYTHONPATH.  It runs from the directory holding that
# tensorlib/, so mypy reads the stubs beside the module that is imported.
#
#   bash .ci/stubtest.sh [extra stubtest flags]
# Exit status: 0 when the stubs match, non-zero on drift.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PY=${PYTHON:-python3}
ALLOWLIST="$HERE/stubtest-allowlist.txt"

# Run the import from a neutral directory: inside the source tree a bare
# `import tensorlib` would find the sources whether or not _C is built.
PKG_ROOT=$(cd / && "$PY" -c '
import os, tensorlib
print(os.path.dirname(os.path.dirname(os.path.abspath(tensorlib.__file__))))
') || { echo "stubtest.sh: cannot import tensorlib with $PY" >&2; exit 2; }
for f in __init__.pyi _C.pyi py.typed; do
    if [ ! -f "$PKG_ROOT/tensorlib/$f" ]; then
        echo "stubtest.sh: $PKG_ROOT/tensorlib/$f is missing (the imported" \
             "tensorlib must carry its stubs)" >&2
        exit 2
    fi
done

# The private implementation modules (_interop, _printing, tour)
# are plain Python without annotations: stubtest builds them to follow
# their imports, but their own type errors are not the stubs' business.
CONFIG=$(mktemp "${TMPDIR:-/tmp}/stubtest-mypy.XXXXXX.ini")
trap 'rm -f "$CONFIG"' EXIT
cat > "$CONFIG" <<'INI'
[mypy]
warn_unused_ignores = True

[mypy-tensorlib._interop,tensorlib._printing,tensorlib.tour]
ignore_errors = True
INI

cd "$PKG_ROOT"
echo "stubtest: tensorlib from $PKG_ROOT"
"$PY" -m mypy.stubtest tensorlib \
    --allowlist "$ALLOWLIST" \
    --mypy-config-file "$CONFIG" \
    "$@"
