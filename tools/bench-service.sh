#!/usr/bin/env bash
# The service's benchmark (prints numbers, asserts nothing): dev.allot.server.bench.ServiceBench from allot-server's
# test classes. Compiles in the reactor (offline, never installs), then runs it on the test class path.
#   tools/bench-service.sh [submit|cycle|forecast|start|all] [--submissions N] [--threads N] [--warmup N] [--no-loop] [--batch N]
#                          [--client-process] (submit: one workload per POST from a client in its own JVM)
#                          [--cycles N] [--samples N] [--rounds N] [--dir DIR]
# Extra JVM options: BENCH_JAVA_OPTS (default -Xmx2g).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cp_file="$(mktemp)"
trap 'rm -f "$cp_file"' EXIT
(cd "$root" && mvn -B -q test-compile dependency:build-classpath -pl allot-server -am \
    -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file") >&2
# The reactor's own modules from their target/classes (first), then the dependencies.
cp="$root/allot-server/target/test-classes:$root/allot-server/target/classes:$root/allot-sim/target/classes:$root/allot-core/target/classes:$(cat "$cp_file")"
# shellcheck disable=SC2086
exec java ${BENCH_JAVA_OPTS:--Xmx2g} -cp "$cp" dev.allot.server.bench.ServiceBench "$@"
