#!/usr/bin/env bash
# make-shims.sh OUTDIR: writes into OUTDIR one executable per Slurm command (sbatch squeue scontrol scancel sacct
# sinfo) that runs the real command, found now on PATH (OUTDIR itself skipped), or fails as configured at the time of
# each call (see README.md and slurm-fault.sh). Put OUTDIR first on PATH, or call OUTDIR/squeue etc. directly.
set -euo pipefail

[ $# = 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
mkdir -p "$1"
outdir=$(cd "$1" && pwd)
cp "$(dirname "$0")/slurm-fault.sh" "$outdir/.slurm-fault.sh"

for cmd in sbatch squeue scontrol scancel sacct sinfo; do
    real=
    IFS=: read -r -a dirs <<< "$PATH"
    for dir in "${dirs[@]}"; do
        if [ -z "$dir" ] || [ "$dir" -ef "$outdir" ]; then continue; fi   # never wrap our own shims
        if [ -x "$dir/$cmd" ] && [ ! -d "$dir/$cmd" ]; then real=$(cd "$dir" && pwd)/$cmd; break; fi
    done
    [ -n "$real" ] || { echo "make-shims.sh: $cmd not found on PATH" >&2; exit 1; }
    cat > "$outdir/$cmd" <<SHIM
#!/usr/bin/env bash
# Made by tools/slurm-faults/make-shims.sh: runs $real, or fails as \$ALLOT_FAULTS_FILE / ALLOT_FAULTS_* say.
exec bash "$outdir/.slurm-fault.sh" $cmd "$real" "\$@"
SHIM
    chmod 755 "$outdir/$cmd"
    echo "$outdir/$cmd -> $real"
done
