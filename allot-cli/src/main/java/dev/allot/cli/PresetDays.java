package dev.allot.cli;

import dev.allot.sim.generate.GeneratorSpec;

/**
 * The {@code --days} option of the commands that generate a scenario from a preset ({@code generate}, {@code sweep},
 * {@code forecast accuracy}, {@code campaign simulate}): one rule for what it accepts and how it changes the preset,
 * refused naming the option (the generator's own check does not name it); and {@code --seed} refused where nothing
 * is generated.
 */
final class PresetDays {
    /**
     * The most days a generated scenario may span: ten years. {@code allot generate DIR --days 99999} ran for minutes
     * and then ran out of memory (the lab preset makes about 1,600 workloads a day, the big one about 3,300).
     */
    static final int MAX_DAYS = 3650;

    private PresetDays() {
    }

    /**
     * Refuses {@code --seed} where no scenario is generated: {@code forecast accuracy DIR --seed 7} and {@code bench
     * --scenario DIR --seed 7} ran the folder as if the seed had not been given, where {@code --days} and {@code sweep
     * --seeds} are refused. The same rule as for {@code --days}, here beside it.
     */
    static void checkSeed(boolean generated, boolean seedGiven) {
        if (seedGiven && !generated) {
            throw new IllegalArgumentException("--seed chooses a generated scenario's seed: give it with --preset");
        }
    }

    /**
     * The generator spec of {@code preset} with {@code days} when given; null when there is no preset (then
     * {@code --days} is refused: it changes a generated scenario only).
     */
    static GeneratorSpec spec(String preset, Integer days) {
        if (days != null && preset == null) {
            throw new IllegalArgumentException("--days applies to a generated scenario: give it with --preset");
        }
        if (days != null && days < 1) {
            throw new IllegalArgumentException("--days expects a whole number of days >= 1, got " + days);
        }
        if (days != null && days > MAX_DAYS) {
            throw new IllegalArgumentException("--days expects at most " + MAX_DAYS + " days (ten years; the lab preset"
                    + " makes about 1,600 workloads a day), got " + days);
        }
        if (preset == null) {
            return null;
        }
        GeneratorSpec spec = GeneratorSpec.preset(preset);
        return days == null ? spec : spec.withDays(days);
    }
}
