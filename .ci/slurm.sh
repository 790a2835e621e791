#!/usr/bin/env bash
# Starts a throwaway Slurm cluster on loopback for the Slurm backend's tests, with tools/slurm-cluster.sh (Debian's
# Slurm 22.05 packages; partition preemption, no database; slurmrestd with a JWT token), and exports the
# ALLOT_TEST_SLURM_* variables the tests read. Source it (it defines start_test_slurm and stop_test_slurm).
#   ALLOT_TEST_SLURM_BASE             the cluster's folder (config, logs, log/jobcomp.log, pid files)
#   ALLOT_TEST_SLURM_CONF             its slurm.conf: set SLURM_CONF to it for every Slurm command
#   ALLOT_TEST_SLURM_REST_URL         slurmrestd, e.g. http://127.0.0.1:6820 (endpoints under /slurm/v0.0.38/)
#   ALLOT_TEST_SLURM_REST_TOKEN_FILE  a JWT for user root (headers X-SLURM-USER-NAME, X-SLURM-USER-TOKEN)
#   ALLOT_TEST_SLURM_SCRIPT           tools/slurm-cluster.sh, absolute (kill-node nI / start-node nI)
# The ports are slurm-cluster.sh's defaults unless CTLD_PORT, SLURMD_PORT0, REST_PORT are set.
# MESSAGE_TIMEOUT=5 (the script's default is Slurm's 10): slurmctld gives up on a killed slurmd after 5 s of refused
# connections instead of 10, twice, so the node-failure story sees its node DOWN after about 18 s instead of 26
# (measured). Allot's own Slurm commands time out after 2 s in the stories anyway.

start_test_slurm() {
    local script dir
    script=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/tools/slurm-cluster.sh
    dir=$(mktemp -d /tmp/allot-slurm.XXXXXX)
    chmod 755 "$dir"   # slurmrestd runs as user slurm and must reach the config inside
    BASE=$dir/slurm MODE=partition REST=1 MESSAGE_TIMEOUT=${MESSAGE_TIMEOUT:-5} "$script" start || { rm -rf "$dir"; return 1; }
    export ALLOT_TEST_SLURM_BASE=$dir/slurm
    export ALLOT_TEST_SLURM_SCRIPT=$script
    local key value
    while IFS='=' read -r key value; do
        case $key in
            SLURM_CONF) export ALLOT_TEST_SLURM_CONF=$value ;;
            SLURM_REST_URL) export ALLOT_TEST_SLURM_REST_URL=$value ;;
            SLURM_REST_TOKEN_FILE) export ALLOT_TEST_SLURM_REST_TOKEN_FILE=$value ;;
        esac
    done < "$ALLOT_TEST_SLURM_BASE/env"
    echo "slurm.sh: Slurm $(SLURM_CONF=$ALLOT_TEST_SLURM_CONF sinfo -V | awk '{print $2}') under $ALLOT_TEST_SLURM_BASE, REST $ALLOT_TEST_SLURM_REST_URL"
}

stop_test_slurm() {
    if [ -n "${ALLOT_TEST_SLURM_BASE:-}" ] && [ -d "$ALLOT_TEST_SLURM_BASE" ]; then
        BASE=$ALLOT_TEST_SLURM_BASE "$ALLOT_TEST_SLURM_SCRIPT" stop >/dev/null || true
        rm -rf "$(dirname "$ALLOT_TEST_SLURM_BASE")"
    fi
}
