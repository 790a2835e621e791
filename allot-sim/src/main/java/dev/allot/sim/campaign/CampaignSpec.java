package dev.allot.sim.campaign;

import dev.allot.core.campaign.ProtectedSlots;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A campaign to simulate, as its file declares it ({@code CampaignReader}): many shards of one job submitted together
 * to one allocation, a few of them protected. It also holds what only a simulation knows, the <em>true</em> time per
 * unit of each family; the campaign's rules never see it and learn rates from the units the shards report.
 *
 * @param name                  names the shards' workloads ({@code name-s07}) and the runs
 * @param allocation            the leaf the campaign is charged to
 * @param submitAtSeconds       when the campaign is submitted, from the start of the scenario
 * @param gpusPerShard          GPUs one run of a shard takes
 * @param minRuntime            the minimum runtime of a protected run (above zero)
 * @param slots                 how many shards (or GPUs) may run protected at once
 * @param declaredSecondsPerUnit the rate the campaign declares before anything is measured, 0 for none
 * @param familySecondsPerUnit  each family's true seconds per unit (simulation only)
 * @param shards                the shards, indexed 0.. in the order given
 */
public record CampaignSpec(String name, String allocation, long submitAtSeconds, int gpusPerShard, Duration minRuntime,
                           ProtectedSlots slots, double declaredSecondsPerUnit,
                           SortedMap<String, Long> familySecondsPerUnit, List<Shard> shards) {

    /**
     * One shard: its family, its units of work, and how fast it runs relative to its family ({@code speed} 2 takes
     * twice the family's time per unit; shards of one family differ, as the seed's find shards did by half).
     */
    public record Shard(int index, String family, long units, double speed) {
        public Shard {
            Objects.requireNonNull(family, "family");
            if (units < 1 || !(speed > 0) || Double.isInfinite(speed)) {
                throw new IllegalArgumentException("shard " + index + ": units " + units + ", speed " + speed
                        + "; expected units >= 1 and a finite speed > 0");
            }
        }
    }

    public CampaignSpec {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(allocation, "allocation");
        Objects.requireNonNull(minRuntime, "minRuntime");
        Objects.requireNonNull(slots, "slots");
        familySecondsPerUnit = new TreeMap<>(familySecondsPerUnit);
        shards = List.copyOf(shards);
        if (submitAtSeconds < 0 || gpusPerShard < 1 || minRuntime.isZero() || minRuntime.isNegative()
                || declaredSecondsPerUnit < 0 || shards.isEmpty()) {
            throw new IllegalArgumentException("campaign " + name + ": expected submit-at >= 0, gpus >= 1, a minimum"
                    + " runtime above zero, a declared rate >= 0 and at least one shard");
        }
        for (int i = 0; i < shards.size(); i++) {
            Shard s = shards.get(i);
            if (s.index() != i) {
                throw new IllegalArgumentException("campaign " + name + ": shard " + i + " has index " + s.index());
            }
            Long rate = familySecondsPerUnit.get(s.family());
            if (rate == null || rate < 1) {
                throw new IllegalArgumentException("campaign " + name + ": shard " + i + " names family '" + s.family()
                        + "' without a time per unit; families: " + familySecondsPerUnit.keySet());
            }
        }
    }

    /** The true seconds one unit of {@code shard} takes: its family's times its speed, at least one second. */
    public long trueSecondsPerUnit(Shard shard) {
        return Math.max(1, Math.round(familySecondsPerUnit.get(shard.family()) * shard.speed()));
    }

    /** The true running time of a whole shard. */
    public long trueSeconds(Shard shard) {
        return shard.units() * trueSecondsPerUnit(shard);
    }

    /** Units of all shards. */
    public long unitsTotal() {
        return shards.stream().mapToLong(Shard::units).sum();
    }

    /** The workload id of a shard: the campaign's name, {@code -s}, and the index padded to the widest. */
    public String shardId(int index) {
        int width = Integer.toString(shards.size() - 1).length();
        return name + "-s" + String.format("%0" + width + "d", index);
    }
}
