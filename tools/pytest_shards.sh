#!/usr/bin/env bash
# Runs one pytest command as N processes at once, each a shard of the
# collected tests (TENSORLIB_SHARD=i/N, tests/conftest.py: the tests
# whose index is i modulo N), so that a CI phase uses every core.
#   tools/pytest_shards.sh N PYTEST_COMMAND...
#   e.g. tools/pytest_shards.sh 2 python -m pytest -q tests
# Each shard writes its own log; the logs are printed whole, one after
# the other, when all have ended.  The exit status is 0 when every shard
# passed; otherwise the first failing shard's (5 when a shard ran no
# test, which CI reads as a failure).
set -uo pipefail
usage() { echo "usage: tools/pytest_shards.sh N PYTEST_COMMAND... ($1)" >&2; exit 2; }
[ $# -ge 2 ] || usage "no command"
N=$1
shift
[[ $N =~ ^[0-9]+$ ]] && [ "$N" -ge 1 ] || usage "N=$N is not a count >= 1"
LOGS=$(mktemp -d -t tl-shards-XXXXXX)
trap 'rm -rf "$LOGS"' EXIT
PIDS=()
for ((i = 0; i < N; i++)); do
    TENSORLIB_SHARD="$i/$N" "$@" >"$LOGS/$i.log" 2>&1 &
    PIDS+=($!)
done
RC=0
for ((i = 0; i < N; i++)); do
    rc=0
    wait "${PIDS[$i]}" || rc=$?
    echo "--- shard $i/$N (exit $rc)"
    cat "$LOGS/$i.log"
    if [ "$rc" -ne 0 ] && [ "$RC" -eq 0 ]; then RC=$rc; fi
done
exit "$RC"
