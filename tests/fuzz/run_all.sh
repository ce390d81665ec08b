#!/usr/bin/env bash
# Runs every atheris harness in tests/fuzz/ for a fixed time, JOBS at once,
# from the checked-in seeds (tests/fuzz/corpus/<name>, never written to:
# new inputs go to a scratch corpus).  Fails when any harness finds a
# crash; the crashing inputs are kept under $FUZZ_OUT (printed).
#   tests/fuzz/run_all.sh [SECONDS_EACH=60] [JOBS=2] [HARNESS...]
# Environment: PYTHON (default python), FUZZ_OUT (default a temp dir),
# FUZZ_SEED (libFuzzer's -seed: the same inputs in the same order on every
# run, as CI sets it; unset, each run draws a new seed),
# FUZZ_RUNS_FILE (lines "name runs": each listed harness stops after that
# many inputs, SECONDS_EACH becoming only a guard; with FUZZ_SEED, every
# run then executes exactly the same inputs, as CI does with
# tests/fuzz/ci_runs),
# FUZZ_BUILD=native: import the clang -fsanitize=fuzzer-no-link,address
# build from build-fuzz/pylib (setup.py TENSORLIB_FUZZ=1) with clang's
# ASan runtime preloaded; otherwise the tensorlib that Python imports.
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
SECS=${1:-60}
JOBS=${2:-2}
shift 2 2>/dev/null || shift $#
PY=${PYTHON:-python}
OUT=${FUZZ_OUT:-$(mktemp -d -t tl-fuzz-XXXXXX)}
mkdir -p "$OUT"
if [ $# -gt 0 ]; then
    NAMES=("$@")
else
    NAMES=()
    for f in "$HERE"/fuzz_*.py; do
        n=$(basename "$f" .py); NAMES+=("${n#fuzz_}")
    done
fi
ENVV=()
if [ "${FUZZ_BUILD:-}" = native ]; then
    ASAN_RT=$(clang -print-file-name=libclang_rt.asan-x86_64.so)
    ENVV=(PYTHONPATH="$ROOT/build-fuzz/pylib" LD_PRELOAD="$ASAN_RT"
          ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1
          PYTHONMALLOC=malloc)
else
    ENVV=(PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}")
fi

runs_for() {
    [ -n "${FUZZ_RUNS_FILE:-}" ] || return 0
    awk -v n="$1" '$1 == n { print $2 }' "$FUZZ_RUNS_FILE"
}

run_one() {
    local name=$1 work="$OUT/$1" nruns
    nruns=$(runs_for "$name")
    mkdir -p "$work/corpus"
    local t0=$(date +%s)
    (cd "$work" && env PYTHONHASHSEED=0 "${ENVV[@]}" "$PY" "$HERE/fuzz_$name.py" \
        -max_total_time="$SECS" -timeout=30 -rss_limit_mb=4096 \
        ${FUZZ_SEED:+-seed="$FUZZ_SEED"} ${nruns:+-runs="$nruns"} \
        -print_final_stats=1 -artifact_prefix="$work/" \
        "$work/corpus" "$HERE/corpus/$name" >"$work/log" 2>&1)
    local rc=$?
    echo $rc >"$work/rc"
    local runs
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/log" \
           | grep -o '[0-9]*$')
    echo "fuzz_$name: rc $rc, ${runs:-?} inputs in $(( $(date +%s) - t0 ))s"
    if [ $rc -ne 0 ]; then
        tail -n 40 "$work/log"
        echo "fuzz_$name FAILED: crashing inputs in $work/"
    fi
    return $rc
}

echo "fuzzing ${#NAMES[@]} harnesses, ${SECS}s each, $JOBS at once; out: $OUT"
for name in "${NAMES[@]}"; do
    while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; done
    run_one "$name" &
done
wait
fail=0
for name in "${NAMES[@]}"; do
    [ "$(cat "$OUT/$name/rc" 2>/dev/null)" = 0 ] || fail=1
done
[ $fail -eq 0 ] && echo "fuzzing: no findings" || echo "fuzzing: FINDINGS"
exit $fail
