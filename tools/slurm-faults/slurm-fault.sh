#!/usr/bin/env bash
# The body of every fault-injecting Slurm command made by make-shims.sh (copied next to them as .slurm-fault.sh).
#   .slurm-fault.sh NAME REAL [ARGS...]   runs REAL ARGS, or, with the configured probability, fails instead.
#
# Configuration, read at every call: the environment (ALLOT_FAULTS_PROBE_RATE, ALLOT_FAULTS_ACTION_RATE,
# ALLOT_FAULTS_SEED, ALLOT_FAULTS_TIMEOUT_SECONDS, ALLOT_FAULTS_PROBE_MODES, ALLOT_FAULTS_ACTION_MODES), then the
# file $ALLOT_FAULTS_FILE if set, whose key=value lines win (so a running process's children see its changes):
#   probe_rate=0.3  action_rate=0.1  seed=42  timeout_seconds=30
#   probe_modes=reset,timeout,empty,truncated  action_modes=refused,applied   (the modes to choose among)
# Probes: squeue, sacct, sinfo, scontrol show/ping. Actions: sbatch, scancel, every other scontrol command.
# Every injected fault is appended as one line to $ALLOT_FAULTS_LOG if set.
set -euo pipefail

name=$1 real=$2
shift 2
here=$(dirname "${BASH_SOURCE[0]}")

probe_rate=${ALLOT_FAULTS_PROBE_RATE:-0}
action_rate=${ALLOT_FAULTS_ACTION_RATE:-0}
seed=${ALLOT_FAULTS_SEED:-0}
timeout_seconds=${ALLOT_FAULTS_TIMEOUT_SECONDS:-30}
probe_modes=${ALLOT_FAULTS_PROBE_MODES:-reset,timeout,empty,truncated}
action_modes=${ALLOT_FAULTS_ACTION_MODES:-refused,applied}
if [ -n "${ALLOT_FAULTS_FILE:-}" ] && [ -r "$ALLOT_FAULTS_FILE" ]; then
    while IFS='=' read -r key value; do
        key=${key//[[:space:]]/}; value=${value//[[:space:]]/}
        case $key in
            probe_rate) probe_rate=$value ;;
            action_rate) action_rate=$value ;;
            seed) seed=$value ;;
            timeout_seconds) timeout_seconds=$value ;;
            probe_modes) probe_modes=$value ;;
            action_modes) action_modes=$value ;;
        esac   # anything else (comments, blank lines, unknown keys) is ignored
    done < "$ALLOT_FAULTS_FILE"
fi

# Probe or action? scontrol is a probe only when it reads (show, ping); its first word that is not an option says.
kind=action
case $name in
    squeue | sacct | sinfo) kind=probe ;;
    scontrol)
        for arg in "$@"; do
            case $arg in
                -*) continue ;;
                show | ping) kind=probe ;;
            esac
            break
        done
        ;;
esac
if [ "$kind" = probe ]; then rate=$probe_rate; modes=$probe_modes; else rate=$action_rate; modes=$action_modes; fi

# rate in millionths; 0 (the default) runs the real command untouched, without counting the call.
rate_ppm=$(awk -v r="$rate" 'BEGIN { printf "%d", r * 1000000 }')
[ "$rate_ppm" -gt 0 ] || exec "$real" "$@"

# The call counter: one number in a file next to the configuration, bumped under flock so that concurrent calls
# each get their own. The seed and the counter decide everything below, so a run can be replayed.
if [ -n "${ALLOT_FAULTS_FILE:-}" ]; then counter=$ALLOT_FAULTS_FILE.counter; else counter=$here/.counter; fi
exec 9>> "$counter.lock"
flock 9
call=$(cat "$counter" 2>/dev/null || echo 0)
call=$((call + 1))
echo "$call" > "$counter"
flock -u 9
exec 9>&-

# Three uniform numbers in [0, 1e6) from sha256(seed:call): fault or not, which mode, how much output to keep.
hash=$(printf '%s:%s' "$seed" "$call" | sha256sum)
u_fault=$(( 16#${hash:0:8} % 1000000 ))
u_mode=$(( 16#${hash:8:8} % 1000000 ))
u_keep=$(( 16#${hash:16:8} % 1000000 ))
[ "$u_fault" -lt "$rate_ppm" ] || exec "$real" "$@"

IFS=',' read -r -a mode_list <<< "$modes"
mode=${mode_list[$((u_mode % ${#mode_list[@]}))]}

note() {  # one line per injected fault
    if [ -n "${ALLOT_FAULTS_LOG:-}" ]; then
        printf '%s %s %s %s call=%s\n' "$(date -u +%Y-%m-%dT%H:%M:%S.%3NZ)" "$name" "$kind" "$1" "$call" >> "$ALLOT_FAULTS_LOG"
    fi
}

case $mode in
    reset)      # the controller connection broke: nothing was asked of Slurm
        note reset
        case $name in
            sinfo) echo "slurm_load_partitions: Connection reset by peer" >&2 ;;
            sacct) echo "sacct: error: slurm_persist_conn_open: Connection reset by peer" >&2 ;;
            *) echo "slurm_load_jobs error: Connection reset by peer" >&2 ;;
        esac
        exit 1 ;;
    timeout)    # the command hangs, then gives up
        note timeout
        sleep "$timeout_seconds"
        echo "$name: error: Socket timed out on send/recv operation" >&2
        exit 1 ;;
    empty)      # success, but no output at all
        note empty
        exit 0 ;;
    truncated)  # the real answer, cut at a random byte; success
        note truncated
        out=$(mktemp)
        trap 'rm -f "$out"' EXIT
        "$real" "$@" > "$out" || true
        size=$(stat -c %s "$out")
        keep=0   # at least one byte and not all of it, when there are two or more (else it would be "empty" or no fault)
        if [ "$size" -ge 2 ]; then keep=$((1 + u_keep % (size - 1))); fi
        head -c "$keep" "$out"
        exit 0 ;;
    refused)    # rejected before reaching Slurm: nothing was done
        note refused
        echo "$name: error: Unable to contact slurm controller (connect failure)" >&2
        exit 1 ;;
    applied)    # the dangerous one: Slurm did it (e.g. the job WAS submitted), the caller sees a failure
        note applied
        "$real" "$@" > /dev/null || true
        if [ $((u_keep % 2)) = 0 ]; then
            echo "$name: error: Access/permission denied" >&2
        else
            echo "$name: error: Socket timed out on send/recv operation" >&2
        fi
        exit 1 ;;
    *)
        echo "slurm-fault: unknown fault mode '$mode' (probe_modes/action_modes)" >&2
        exit 2 ;;
esac
