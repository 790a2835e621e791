package dev.allot.sim.campaign;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.SplittableRandom;

/**
 * Makes the shards of a campaign file's {@code generate:} section: {@code count} shards whose true work spreads over
 * {@code [minHours, maxHours]}, in the file's families taken in turn (so each family has short and long shards).
 * The hours are stratified (one draw in each of {@code count} equal parts of the range) so that every seed spreads
 * them over the whole range, then shuffled, so that submission order says nothing about length (the seed's FIFO
 * parking met exactly that). Each shard's speed is drawn in {@code [minSpeed, maxSpeed]} and its units are its hours
 * over its true time per unit. Same arguments, same shards.
 */
public final class ShardGenerator {
    private ShardGenerator() {
    }

    public static List<CampaignSpec.Shard> generate(int count, double minHours, double maxHours, long seed,
                                                    SortedMap<String, Long> familySecondsPerUnit, double minSpeed,
                                                    double maxSpeed) {
        if (count < 1 || !(minHours > 0) || maxHours < minHours || familySecondsPerUnit.isEmpty()
                || !(minSpeed > 0) || maxSpeed < minSpeed) {
            throw new IllegalArgumentException("expected count >= 1, 0 < min hours <= max hours, a family and"
                    + " 0 < min speed <= max speed");
        }
        SplittableRandom random = new SplittableRandom(seed);
        double[] hours = new double[count];
        for (int i = 0; i < count; i++) {
            hours[i] = minHours + (maxHours - minHours) * (i + random.nextDouble()) / count;
        }
        for (int i = count - 1; i > 0; i--) {
            int j = random.nextInt(i + 1);
            double h = hours[i];
            hours[i] = hours[j];
            hours[j] = h;
        }
        List<String> families = new ArrayList<>(familySecondsPerUnit.keySet());
        List<CampaignSpec.Shard> shards = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String family = families.get(i % families.size());
            double speed = minSpeed == maxSpeed ? minSpeed : minSpeed + (maxSpeed - minSpeed) * random.nextDouble();
            speed = Math.round(speed * 1000) / 1000.0;
            long perUnit = Math.max(1, Math.round(familySecondsPerUnit.get(family) * speed));
            long units = Math.max(1, Math.round(hours[i] * 3600 / perUnit));
            shards.add(new CampaignSpec.Shard(i, family, units, speed));
        }
        return shards;
    }
}
