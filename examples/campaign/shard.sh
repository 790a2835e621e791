#!/bin/sh
# One shard of examples/campaign/local-eval.yaml: does its units from ALLOT_RESUME_FROM (the units already reported,
# never done again) to ALLOT_UNITS, a few seconds each by family, and reports each one with `allot progress`, so Allot
# measures the shard's rate. A real shard would evaluate rows here and write their results before reporting them.
set -eu
case "${ALLOT_FAMILY:-}" in
    retrieve) seconds=6 ;;
    *) seconds=2 ;;
esac
i=${ALLOT_RESUME_FROM:-0}
while [ "$i" -lt "$ALLOT_UNITS" ]; do
    sleep "$seconds"
    i=$((i + 1))
    "$ALLOT_HOME/allot" progress "$ALLOT_WORKLOAD_ID" "$i" "$ALLOT_UNITS" > /dev/null
done
