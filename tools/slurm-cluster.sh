#!/usr/bin/env bash
# A throwaway Slurm cluster on loopback for Allot's tests (Debian 12 packages, Slurm 22.05).
#
#   tools/slurm-cluster.sh start | stop | status | kill-node nI | start-node nI
#
# Everything lives under $BASE: config, state, logs, sockets, a private munge key, fake GPU device files,
# and one pid file per daemon in $BASE/pids. "stop" kills exactly the PIDs in those files and nothing else.
#
# Environment (read by "start"; the other commands only need BASE):
#   BASE=/tmp/allot-slurm   must not exist yet ("start" refuses otherwise)
#   NODES=4 GPUS=8 CPUS=16  emulated nodes n1..nN, each with GPUS GPUs and CPUS CPUs
#   MODE=partition          partitions allot (PriorityTier=10) and allot-free (PriorityTier=1) over the same
#                           nodes, no database; Slurm preempts nothing (Allot does). PREEMPT=on: allot-free jobs
#                           are preempted by requeue for allot ones (preempt/partition_prio)
#   MODE=qos                one partition allot; MariaDB + slurmdbd, QOS allot preempts QOS allot-free by requeue;
#                           accounting, so sacct --json works
#   REST=1                  also run slurmrestd (JWT) on 127.0.0.1:REST_PORT
#   CONF_EXTRA=FILE         more slurm.conf lines (e.g. the slurm.conf of `allot slurm-config`): a Key= in it
#                           replaces this script's line of that key; all go before the node and partition lines,
#                           so a PartitionName=DEFAULT line in it applies to the partitions
#   SACCTMGR_SCRIPT=FILE    (MODE=qos) a sh script of sacctmgr commands run after this script's own accounts and
#                           QOS, before slurmctld starts (e.g. the sacctmgr.sh of `allot slurm-config`); with -e
#   CTLD_PORT=6817 SLURMD_PORT0=17000 (node nI listens on SLURMD_PORT0+I) REST_PORT=6820 DBD_PORT=6819
#   DB_PORT=13306
#   SLURMD_TIMEOUT=10       slurm.conf's SlurmdTimeout: seconds without an answer from a node's slurmd before
#                           slurmctld sets the node DOWN (and requeues its jobs); it pings every third of it. Lower
#                           is riskier on a loaded machine (a slow slurmd is taken for a dead one) and, alone, hardly
#                           faster: see MESSAGE_TIMEOUT.
#   MESSAGE_TIMEOUT=10      slurm.conf's MessageTimeout: seconds a Slurm RPC may take. slurmctld also retries a
#                           refused connection to a slurmd once a second for this long (at most 10), once for its
#                           ping and once for the registration request that follows, before a dead slurmd counts
#                           as not responding; a killed slurmd's node shows as DOWN after about
#                           2 x MESSAGE_TIMEOUT + SLURMD_TIMEOUT/3 + a few seconds (10 and 10: about 26 s; 5 and
#                           10: about 18 s). Every Slurm RPC must answer within it, so not too low on a busy machine.
set -euo pipefail

BASE=${BASE:-/tmp/allot-slurm}
BASE=${BASE%/}
# Every Slurm command below must see our config: without one, the clients look for the controller with a DNS
# SRV lookup, which must never leave the machine.
export SLURM_CONF=$BASE/etc/slurm.conf

log() {  # prints seconds since start, from bash's microsecond clock
    local us=$((${EPOCHREALTIME/./} - T0))
    printf '[%d.%02ds] %s\n' $((us / 1000000)) $((us % 1000000 / 10000)) "$*"
}
die() { echo "slurm-cluster.sh: $*" >&2; exit 1; }
T0=${EPOCHREALTIME/./}

# wait_until SECONDS CMD...: retries CMD every 0.1 s until it succeeds; fails after SECONDS.
wait_until() {
    local deadline=$(($(date +%s) + $1)); shift
    until "$@" >/dev/null 2>&1; do
        [ "$(date +%s)" -lt "$deadline" ] || { echo "slurm-cluster.sh: timed out waiting for: $*" >&2; return 1; }
        sleep 0.1
    done
}

# alive PID: the process exists and is not a zombie.
alive() {
    local stat
    stat=$(ps -o stat= -p "$1" 2>/dev/null) || return 1
    [ "${stat:0:1}" != Z ]
}

pid_of() { cat "$BASE/pids/$1.pid" 2>/dev/null; }

# stop_daemon NAME: TERM the PID in pids/NAME.pid, KILL it if still alive after 10 s (a slurmd stuck retrying
# its registration has been seen to ignore TERM), then remove the pid file.
stop_daemon() {
    local name=$1 pid
    pid=$(pid_of "$name") || return 0
    if [ -n "$pid" ] && alive "$pid"; then
        kill -TERM "$pid" 2>/dev/null || true
        wait_until 10 bash -c "! ps -o stat= -p $pid | grep -qv '^Z'" || true
        if alive "$pid"; then
            kill -KILL "$pid" 2>/dev/null || true
            echo "stopped $name (pid $pid, KILL after TERM timed out)"
        else
            echo "stopped $name (pid $pid)"
        fi
    else
        echo "$name (pid ${pid:-?}) was not running"
    fi
    rm -f "$BASE/pids/$name.pid"
}

# The processes a node's slurmd started for jobs (slurmstepd and the job's tasks) are not its children: slurmd
# double-forks them. To find them, slurmd is started with ALLOT_SLURM_NODE=$BASE/nI in its environment, which
# its slurmstepd processes inherit; the job tasks are their children.
node_marker() { echo "ALLOT_SLURM_NODE=$BASE/$1"; }

node_step_pids() {  # node_step_pids nI...: PIDs whose environment holds one of these nodes' markers
    local n patterns=()
    for n in "$@"; do patterns+=(-e "$(node_marker "$n")"); done
    # One grep over every process's environment (NUL-separated); unreadable or vanished processes are skipped.
    grep -lzxF "${patterns[@]}" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3 || true
}

descendants() {  # descendants PID...: the PIDs given and all their descendants
    local p
    for p in "$@"; do
        echo "$p"
        # shellcheck disable=SC2046  # one PID per word
        descendants $(ps -o pid= --ppid "$p" 2>/dev/null || true)
    done
}

check_node() {
    [ -n "${1:-}" ] || die "which node? (n1, n2, ...)"
    grep -q "^NodeName=$1 " "$SLURM_CONF" 2>/dev/null || die "no node $1 in $SLURM_CONF"
}

start_slurmd() {  # start_slurmd nI: starts that node's slurmd (it writes pids/slurmd-nI.pid itself)
    rm -f "$BASE/pids/slurmd-$1.pid"
    env "$(node_marker "$1")" slurmd -N "$1"
    wait_until 10 test -s "$BASE/pids/slurmd-$1.pid"
}

port_free() {  # (without ss, from iproute2, no check: a taken port then shows as a daemon failing to start)
    command -v ss >/dev/null 2>&1 || return 0
    [ -z "$(ss -Hltn "sport = :$1")" ]
}

cmd_start() {
    local mode=${MODE:-partition} nodes=${NODES:-4} gpus=${GPUS:-8} cpus=${CPUS:-16} rest=${REST:-0}
    local ctld_port=${CTLD_PORT:-6817} slurmd_port0=${SLURMD_PORT0:-17000} rest_port=${REST_PORT:-6820}
    local dbd_port=${DBD_PORT:-6819} db_port=${DB_PORT:-13306} slurmd_timeout=${SLURMD_TIMEOUT:-10}
    local message_timeout=${MESSAGE_TIMEOUT:-10}
    local host i p
    host=$(hostname -s)
    case $mode in partition|qos) ;; *) die "MODE must be partition or qos, not '$mode'" ;; esac
    [ -z "${CONF_EXTRA:-}" ] || [ -r "$CONF_EXTRA" ] || die "CONF_EXTRA=$CONF_EXTRA: no such readable file"
    if [ -n "${SACCTMGR_SCRIPT:-}" ]; then
        [ -r "$SACCTMGR_SCRIPT" ] || die "SACCTMGR_SCRIPT=$SACCTMGR_SCRIPT: no such readable file"
        [ "$mode" = qos ] || die "SACCTMGR_SCRIPT needs MODE=qos (accounts and QOS live in slurmdbd)"
    fi
    if [ "$nodes" -lt 1 ] || [ "$gpus" -lt 1 ]; then die "NODES and GPUS must be at least 1"; fi
    [[ $slurmd_timeout =~ ^[1-9][0-9]*$ ]] || die "SLURMD_TIMEOUT must be a whole number of seconds, at least 1, not '$slurmd_timeout'"
    [[ $message_timeout =~ ^[1-9][0-9]*$ ]] || die "MESSAGE_TIMEOUT must be a whole number of seconds, at least 1, not '$message_timeout'"
    [ ! -e "$BASE" ] || die "$BASE exists (another cluster, or an old one's logs): stop it, remove it, or pick another BASE"

    # Fail fast and clearly if a port is taken (e.g. by another cluster on the default ports).
    local ports=("$ctld_port")
    for i in $(seq 1 "$nodes"); do ports+=($((slurmd_port0 + i))); done
    [ "$rest" = 1 ] && ports+=("$rest_port")
    [ "$mode" = qos ] && ports+=("$dbd_port" "$db_port")
    for p in "${ports[@]}"; do port_free "$p" || die "port $p is in use; set CTLD_PORT/SLURMD_PORT0/REST_PORT/DBD_PORT/DB_PORT"; done

    # munged (and slurmrestd, which runs as user slurm) need every folder above $BASE searchable by all users;
    # mktemp -d makes a 700 folder, for instance.
    local dir=$BASE perm
    while dir=$(dirname "$dir"); [ "$dir" != / ]; do
        [ -d "$dir" ] || continue
        perm=$(stat -c %A "$dir")
        case ${perm:9:1} in x | t) ;; *) die "$dir is not searchable by all users (chmod o+x it): munged needs that" ;; esac
    done

    mkdir -p "$BASE"/{etc,pids,log,state,spool,run,dev,munge}
    # If anything below fails (or we are interrupted), stop what was started already; $BASE stays, with its logs.
    START_DONE=0
    trap 'if [ "$START_DONE" != 1 ]; then
              echo "slurm-cluster.sh: start failed, stopping what was started (logs in $BASE/log)" >&2; cmd_stop >&2
          fi' EXIT
    # slurmrestd runs as user slurm and must read slurm.conf; munge clients need to reach the socket's folder.
    chmod 755 "$BASE" "$BASE/etc" "$BASE/munge"

    # munge, with a private key and socket.
    mungekey -c -k "$BASE/munge/munge.key"
    munged --key-file="$BASE/munge/munge.key" --socket="$BASE/munge/munge.socket" \
        --pid-file="$BASE/pids/munged.pid" --log-file="$BASE/log/munged.log" --seed-file="$BASE/munge/munged.seed"
    wait_until 10 test -s "$BASE/pids/munged.pid"
    log "munged pid $(pid_of munged)"

    # Fake GPUs: gres/gpu drops GPUs without File=, and File= must name a character device.
    for i in $(seq 0 $((gpus - 1))); do mknod "$BASE/dev/nvidia$i" c 1 3; done
    echo "NodeName=n[1-$nodes] Name=gpu File=$BASE/dev/nvidia[0-$((gpus - 1))]" > "$BASE/etc/gres.conf"
    # Key for JWT tokens (slurmrestd clients and `scontrol token`).
    head -c 32 /dev/urandom > "$BASE/etc/jwt.key"
    chmod 600 "$BASE/etc/jwt.key"

    local accounting preemption partitions
    if [ "$mode" = qos ]; then
        # AccountingStoragePass names the munge socket: without it slurmctld looks for the default one and dies.
        accounting="AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=127.0.0.1
AccountingStoragePort=$dbd_port
AccountingStoragePass=$BASE/munge/munge.socket
AccountingStorageEnforce=associations,limits,qos
AccountingStorageTRES=gres/gpu"
        preemption="PreemptType=preempt/qos
PreemptMode=REQUEUE"
        partitions="PartitionName=allot Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP"
    elif [ "${PREEMPT:-off}" = on ]; then
        accounting="AccountingStorageType=accounting_storage/none"
        preemption="PreemptType=preempt/partition_prio
PreemptMode=REQUEUE"
        partitions="PartitionName=allot      Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP PriorityTier=10 PreemptMode=OFF
PartitionName=allot-free Nodes=n[1-$nodes] Default=NO  MaxTime=INFINITE State=UP PriorityTier=1  PreemptMode=REQUEUE"
    else
        # Allot preempts; Slurm never does on its own (PREEMPT=on gives allot-free jobs to allot ones by requeue).
        accounting="AccountingStorageType=accounting_storage/none"
        preemption="PreemptType=preempt/none
PreemptMode=OFF"
        partitions="PartitionName=allot      Nodes=n[1-$nodes] Default=YES MaxTime=INFINITE State=UP PriorityTier=10
PartitionName=allot-free Nodes=n[1-$nodes] Default=NO  MaxTime=INFINITE State=UP PriorityTier=1"
    fi
    {
        without_keys_of "${CONF_EXTRA:-}" <<EOF
ClusterName=allot
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port0
CommunicationParameters=NoInAddrAny
AuthType=auth/munge
CredType=cred/munge
# cred_expire=5 is the minimum: a requeued job cannot start again before it has passed.
AuthInfo=socket=$BASE/munge/munge.socket,cred_expire=5
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$BASE/etc/jwt.key
StateSaveLocation=$BASE/state
SlurmdSpoolDir=$BASE/spool/%n
SlurmctldPidFile=$BASE/pids/slurmctld.pid
SlurmdPidFile=$BASE/pids/slurmd-%n.pid
SlurmctldLogFile=$BASE/log/slurmctld.log
SlurmdLogFile=$BASE/log/slurmd-%n.log
SlurmctldDebug=info
SlurmdDebug=info
MailProg=/bin/true
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
# Slurm's own one-line record of every job that ended: the tests' ground truth.
JobCompType=jobcomp/filetxt
JobCompLoc=$BASE/log/jobcomp.log
$accounting
MpiDefault=none
SwitchType=switch/none
ReturnToService=2
SlurmdTimeout=$slurmd_timeout
MessageTimeout=$message_timeout
KillWait=2
# Ended jobs stay visible (squeue --json, scontrol show job) for an hour.
MinJobAge=3600
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
GresTypes=gpu
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0,sched_interval=2,bf_interval=1
PriorityType=priority/multifactor
PriorityWeightQOS=10000
$preemption
# Lets the emulated nodes claim more CPUs and memory than this machine has.
SlurmdParameters=config_overrides
EOF
        if [ -n "${CONF_EXTRA:-}" ]; then
            echo "# ---- from CONF_EXTRA=$CONF_EXTRA"
            cat "$CONF_EXTRA"
            echo "# ----"
        fi
        for i in $(seq 1 "$nodes"); do
            echo "NodeName=n$i NodeHostname=$host NodeAddr=127.0.0.1 Port=$((slurmd_port0 + i)) CPUs=$cpus RealMemory=16000 Gres=gpu:$gpus State=UNKNOWN"
        done
        echo "$partitions"
    } > "$BASE/etc/slurm.conf"

    if [ "$mode" = qos ]; then
        # A private MariaDB on 127.0.0.1 for slurmdbd.
        mkdir -p "$BASE/mysql"
        mariadb-install-db --no-defaults --user=root --datadir="$BASE/mysql" \
            --auth-root-authentication-method=socket --skip-test-db > "$BASE/log/mariadb-install.log" 2>&1
        setsid mariadbd --no-defaults --user=root --datadir="$BASE/mysql" --socket="$BASE/run/mysqld.sock" \
            --port="$db_port" --bind-address=127.0.0.1 --skip-name-resolve --innodb-buffer-pool-size=64M \
            --pid-file="$BASE/run/mysqld.pid" --log-error="$BASE/log/mariadb.log" </dev/null >/dev/null 2>&1 &
        echo $! > "$BASE/pids/mariadbd.pid"
        wait_until 30 mariadb-admin --no-defaults -S "$BASE/run/mysqld.sock" ping
        mariadb --no-defaults -S "$BASE/run/mysqld.sock" -u root -e \
            "CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY 'slurm'; GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';"
        log "mariadbd pid $(pid_of mariadbd) on 127.0.0.1:$db_port"
        cat > "$BASE/etc/slurmdbd.conf" <<EOF
AuthType=auth/munge
AuthInfo=socket=$BASE/munge/munge.socket
AuthAltTypes=auth/jwt
AuthAltParameters=jwt_key=$BASE/etc/jwt.key
DbdHost=$host
DbdAddr=127.0.0.1
DbdPort=$dbd_port
SlurmUser=root
PidFile=$BASE/pids/slurmdbd.pid
LogFile=$BASE/log/slurmdbd.log
DebugLevel=info
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$db_port
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
EOF
        chmod 600 "$BASE/etc/slurmdbd.conf"   # slurmdbd refuses a readable config holding a password
        slurmdbd
        wait_until 30 timeout 5 sacctmgr -n show cluster
        log "slurmdbd pid $(pid_of slurmdbd) on 127.0.0.1:$dbd_port"
        {
            local sam=(timeout 20 sacctmgr -i)
            "${sam[@]}" add cluster allot
            "${sam[@]}" add qos allot Priority=1000
            "${sam[@]}" add qos allot-free Priority=0 PreemptMode=requeue
            "${sam[@]}" modify qos allot set Preempt=allot-free
            "${sam[@]}" add account allot Cluster=allot Description=allot Organization=allot
            "${sam[@]}" add user root Account=allot QOS=normal,allot,allot-free DefaultQOS=allot
            # "add cluster" made root a user of account root already; jobs use the default account.
            "${sam[@]}" modify user root set DefaultAccount=allot
        } > "$BASE/log/sacctmgr.log"
        log "QOS allot (preempts) and allot-free (preemptible by requeue), account allot"
        if [ -n "${SACCTMGR_SCRIPT:-}" ]; then
            timeout 120 sh -e "$SACCTMGR_SCRIPT" >> "$BASE/log/sacctmgr.log" 2>&1 ||
                die "SACCTMGR_SCRIPT=$SACCTMGR_SCRIPT failed (see $BASE/log/sacctmgr.log)"
            log "ran $SACCTMGR_SCRIPT"
        fi
    fi

    slurmctld -c   # -c: a clean start, no saved state
    wait_until 30 timeout 3 scontrol ping
    log "slurmctld pid $(pid_of slurmctld) on 127.0.0.1:$ctld_port"
    for i in $(seq 1 "$nodes"); do start_slurmd "n$i"; done
    wait_until 30 bash -c "[ \"\$(timeout 3 sinfo -h -N -t idle -o %N | sort -u | wc -l)\" = $nodes ]"
    log "$nodes nodes idle (n1..n$nodes, $gpus GPUs each, slurmd ports $((slurmd_port0 + 1))..$((slurmd_port0 + nodes)))"

    echo "SLURM_CONF=$SLURM_CONF" > "$BASE/env"
    if [ "$rest" = 1 ]; then
        runuser -u slurm -- test -r "$SLURM_CONF" ||
            die "user slurm cannot read $SLURM_CONF (slurmrestd needs it): make $BASE's parent folders world-searchable"
        # slurmrestd refuses to run as root; with rest_auth/jwt it needs SLURM_JWT=daemon. The dbv0.0.38 plugin
        # is fatal without slurmdbd, so only in qos mode.
        local plugins=openapi/v0.0.38
        [ "$mode" = qos ] && plugins+=,openapi/dbv0.0.38
        SLURM_JWT=daemon setsid slurmrestd -u slurm -a rest_auth/jwt -s "$plugins" "127.0.0.1:$rest_port" \
            </dev/null >"$BASE/log/slurmrestd.log" 2>&1 &
        echo $! > "$BASE/pids/slurmrestd.pid"
        timeout 5 scontrol token username=root lifespan=864000 | sed -n 's/^SLURM_JWT=//p' > "$BASE/etc/root.jwt"
        [ -s "$BASE/etc/root.jwt" ] || die "scontrol token printed no token"
        wait_until 15 bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' -H 'X-SLURM-USER-NAME: root' \
            -H \"X-SLURM-USER-TOKEN: \$(cat '$BASE/etc/root.jwt')\" http://127.0.0.1:$rest_port/slurm/v0.0.38/ping)\" = 200 ]"
        echo "SLURM_REST_URL=http://127.0.0.1:$rest_port" >> "$BASE/env"
        echo "SLURM_REST_TOKEN_FILE=$BASE/etc/root.jwt" >> "$BASE/env"
        log "slurmrestd pid $(pid_of slurmrestd) on http://127.0.0.1:$rest_port (user root, token in $BASE/etc/root.jwt)"
    fi
    START_DONE=1
    log "ready ($mode mode); settings in $BASE/env"
    echo "export SLURM_CONF=$SLURM_CONF"
}

# without_keys_of FILE: stdin without the lines whose Key= FILE sets (NodeName and PartitionName lines stay).
without_keys_of() {
    if [ -z "$1" ]; then cat; return; fi
    local keys
    keys=$(sed -n 's/^[[:space:]]*\([A-Za-z][A-Za-z0-9]*\)=.*/\1/p' "$1" | grep -viE '^(NodeName|PartitionName)$' |
        tr '\n' '|' || true)
    if [ -z "$keys" ]; then cat; return; fi
    grep -viE "^(${keys%|})=" || true
}

cmd_stop() {
    [ -d "$BASE/pids" ] || { echo "no cluster under $BASE (no $BASE/pids)"; return 0; }
    local f name live=""
    # Cancel the jobs first, so that no slurmstepd is left behind by its slurmd, and wait for the jobs on nodes with
    # a live slurmd to end (a job on a killed node would stay COMPLETING until the node is declared down).
    if [ -n "$(pid_of slurmctld)" ] && alive "$(pid_of slurmctld)"; then
        # Every user's jobs (the stories run jobs as root, as nobody and as test accounts), not only root's.
        local ids
        ids=$(timeout 5 squeue -h -o %i 2>/dev/null | tr '\n' ' ')
        # shellcheck disable=SC2086  # one job id per word
        [ -z "${ids// /}" ] || timeout 10 scancel $ids >/dev/null 2>&1 || true
        for f in "$BASE"/pids/slurmd-*.pid; do
            if [ -e "$f" ] && alive "$(cat "$f")"; then
                name=$(basename "$f" .pid); live+=${live:+,}${name#slurmd-}
            fi
        done
        if [ -n "$live" ]; then
            wait_until 20 bash -c "[ -z \"\$(timeout 3 squeue -h -w $live -o %i 2>/dev/null)\" ]" ||
                echo "some jobs did not end within 20 s" >&2
        fi
    fi
    stop_daemon slurmrestd
    for f in "$BASE"/pids/slurmd-*.pid; do
        [ -e "$f" ] || continue
        name=$(basename "$f" .pid); stop_daemon "$name"
    done
    # Job processes a killed node (kill-node) left behind.
    # shellcheck disable=SC2046  # one node name per word
    kill_node_jobs $(sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' "$SLURM_CONF" 2>/dev/null)
    stop_daemon slurmctld
    stop_daemon slurmdbd
    stop_daemon mariadbd
    stop_daemon munged
}

kill_node_jobs() {  # kill_node_jobs nI...: SIGKILL these nodes' slurmstepd processes and their children (the tasks)
    [ $# -gt 0 ] || return 0
    local pids
    # shellcheck disable=SC2046
    pids=$(descendants $(node_step_pids "$@") | sort -un | tr '\n' ' ')
    if [ -n "${pids// /}" ]; then
        # shellcheck disable=SC2086
        kill -KILL $pids 2>/dev/null || true
        echo "killed job processes of $*: $pids"
    fi
}

cmd_status() {
    [ -d "$BASE/pids" ] || { echo "no cluster under $BASE"; return 1; }
    local f name pid down=0 any=0
    for f in "$BASE"/pids/*.pid; do
        [ -e "$f" ] || continue
        any=1
        name=$(basename "$f" .pid); pid=$(cat "$f")
        if alive "$pid"; then echo "$name pid $pid running"; else echo "$name pid $pid NOT running"; down=1; fi
    done
    [ "$any" = 1 ] || { echo "no daemon of $BASE is running (stopped)"; return 1; }
    cat "$BASE/env" 2>/dev/null || true
    if [ -n "$(pid_of slurmctld)" ] && alive "$(pid_of slurmctld)"; then
        timeout 5 sinfo -N -o '%N %P %T %G' || true
    fi
    return "$down"
}

cmd_kill_node() {  # a node failure: SIGKILL its slurmd and everything it was running for jobs
    check_node "${1:-}"
    local pid
    pid=$(pid_of "slurmd-$1") || die "no pid file for $1's slurmd (already killed?)"
    kill -KILL "$pid" 2>/dev/null || true
    rm -f "$BASE/pids/slurmd-$1.pid"
    echo "killed slurmd of $1 (pid $pid)"
    kill_node_jobs "$1"
}

cmd_start_node() {
    check_node "${1:-}"
    local pid
    if pid=$(pid_of "slurmd-$1") && alive "$pid"; then die "slurmd of $1 already runs (pid $pid)"; fi
    start_slurmd "$1"
    echo "started slurmd of $1 (pid $(pid_of "slurmd-$1"))"
}

case "${1:-}" in
    start) cmd_start ;;
    stop) cmd_stop ;;
    status) cmd_status ;;
    kill-node) cmd_kill_node "${2:-}" ;;
    start-node) cmd_start_node "${2:-}" ;;
    *) echo "usage: $0 start|stop|status|kill-node nI|start-node nI" >&2; exit 2 ;;
esac
