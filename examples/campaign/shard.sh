#!/bin/sh
# One shard of examples/campaign/local-eval.yaml: does its units from ALLOT_RESUME_FROM (the units already reported,
# never done again) to ALLOT_UNITS, a few seconds each by family, and reports each one with `allot progress`, so Allot
# measures the shard's rate. A real shard would evaluate rows here and write their results before reporting them.
# A report that fails (the service restarting, a network blip) does not end the shard: the count is cumulative, so the
# next report carries it, and a shard that exits 0 has done every unit. Ending here would fail the shard (held, never
# resubmitted by itself) for the server's hiccup: the babysitter's lesson, a failed probe means unknown.
set -eu
case "${ALLOT_FAMILY:-}" in
    retrieve) seconds=6 ;;
    *) seconds=2 ;;
esac
i=${ALLOT_RESUME_FROM:-0}
while [ "$i" -lt "$ALLOT_UNITS" ]; do
    sleep "$seconds"
    i=$((i + 1))
    "$ALLOT_HOME/allot" progress "$ALLOT_WORKLOAD_ID" "$i" "$ALLOT_UNITS" > /dev/null \
        || echo "shard.sh: could not report unit $i of $ALLOT_UNITS; the next report carries it" >&2
done
