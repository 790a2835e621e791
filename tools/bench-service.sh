#!/usr/bin/env bash
# The service's benchmark (prints numbers, asserts nothing): dev.allot.server.bench.ServiceBench from allot-server's
# test classes. Compiles in the reactor (offline, never installs), then runs it on the test class path.
#   tools/bench-service.sh [submit|cycle|forecast|start|start-busy|memory|all] [--submissions N] [--threads N]
#                          [--warmup N] [--no-loop] [--batch N] [--client-process] [--cycles N] [--samples N]
#                          [--rounds N] [--dir DIR] [--gpus N] [--grace 30s] [--victims-ignore-term] [--waiting N]
#                          [--seconds N] [--histo] [--repeat N]
#   (submit --client-process: one workload per POST from a client in its own JVM)
# Extra JVM options: BENCH_JAVA_OPTS (default -Xmx2g; -Xmx512m for memory, the heap its goal names).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cp_file="$(mktemp)"
trap 'rm -f "$cp_file"' EXIT # exec below replaces this shell: the file is also removed before it
(cd "$root" && mvn -B -q test-compile dependency:build-classpath -pl allot-server -am \
    -Dmdep.includeScope=test -Dmdep.outputFile="$cp_file") >&2
# The reactor's own modules from their target/classes (first), then the dependencies.
cp="$root/allot-server/target/test-classes:$root/allot-server/target/classes:$root/allot-sim/target/classes:$root/allot-core/target/classes:$(cat "$cp_file")"
rm -f "$cp_file"
# shellcheck disable=SC2086
default_opts=-Xmx2g
if [[ "${1:-}" == memory ]]; then
    default_opts=-Xmx512m
fi
exec java ${BENCH_JAVA_OPTS:-$default_opts} -cp "$cp" dev.allot.server.bench.ServiceBench "$@"
