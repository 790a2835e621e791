package dev.allot.core.policy.allocation;

import dev.allot.core.model.Decimals;
import dev.allot.core.model.Durations;
import dev.allot.core.policy.SettingSpec;
import dev.allot.core.policy.Settings;
import dev.allot.core.policy.allocation.preemption.Ranking;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The allocation policy's settings, in one place: their names, defaults and meanings ({@link #SPECS}, what
 * {@code allot policies} lists and {@code policy.yaml} and {@code --set} are checked against) and the checks on their
 * values, which name the setting, the value and what was expected. {@code docs/policy.md} gives the measurements
 * behind each default.
 *
 * @param fairshareRecheck while allocated work waits and preemptible work runs, re-rank at least this often
 * @param reservation      reservations for blocked gangs
 * @param ranking          {@link Ranking}
 * @param reclaimMargin    hysteresis: a victim's allocation stands at least 1 + this
 * @param maxReservations  blocked gangs holding nodes at once
 * @param starvationLimit  after this wait, owed work larger than its quota takes turns
 * @param wasteLimit       0: no limit; else the most work a preemption may throw away, in multiples of what it protects
 * @param placement        where small allocated work starts ({@link Placement})
 * @param shortcuts        skip searches that provably fail (false: the same decisions, slower)
 * @param burstReserve     {@link BurstReserve}: the share of the other allocations' unused quotas kept quickly
 *                         reclaimable (0: off)
 * @param burstShortProtection work protected at most this long is exempt from the burst reserve
 * @param minTurn          a preemptor whose allocation is not owed takes other allocations' work that was preempted
 *                         before only once its run has lasted this long (0: as soon as its protection ends)
 */
public record AllocationSettings(Duration fairshareRecheck, boolean reservation, Ranking ranking, double reclaimMargin,
                                 int maxReservations, Duration starvationLimit, double wasteLimit, Placement placement,
                                 boolean shortcuts, double burstReserve, Duration burstShortProtection,
                                 Duration minTurn) {

    /** Where small allocated work starts: {@link ProtectionPacking} or plain best fit. */
    public enum Placement {
        PROTECTION("protection"),
        BEST_FIT("best-fit");

        final String label;

        Placement(String label) {
            this.label = label;
        }

        public String label() {
            return label;
        }

        static List<String> labels() {
            return Arrays.stream(values()).map(Placement::label).toList();
        }

        static Placement parse(String text) {
            for (Placement p : values()) {
                if (p.label.equals(text.trim().toLowerCase(Locale.ROOT))) {
                    return p;
                }
            }
            throw new IllegalArgumentException("placement: expected one of " + String.join(", ", labels())
                    + ", got '" + text + "'");
        }
    }

    /** The range of the numbers that must not be negative, as words to follow "a number". */
    private static final String AT_LEAST_0 = ">= 0";
    private static final int MIN_RESERVATIONS = 1;
    private static final int MAX_RESERVATIONS = 1000;
    private static final String RESERVATIONS_RANGE = "from " + MIN_RESERVATIONS + " to " + MAX_RESERVATIONS;

    /** The default shortest turn (docs/policy.md, "Shortest turn"). */
    static final Duration MIN_TURN_DEFAULT = Duration.ofHours(1);

    public static final List<SettingSpec> SPECS = List.of(
            SettingSpec.duration("fairshare-recheck", Duration.ofMinutes(5),
                    "while allocated work waits and preemptible work runs, re-rank at least this often"
                            + " (fair share drifts as usage accrues and leaves the window)"),
            SettingSpec.bool("reservation", true,
                    "hold nodes for the first allocated workload that cannot start, so small work cannot starve large"
                            + " gangs (EASY backfill with minimum runtimes as the known horizon)"),
            SettingSpec.choice("ranking", Ranking.ENTITLEMENT.label(), Ranking.labels(),
                    "lookback: the seed's pure lookback ranking (one order by usage over the window, level by level);"
                            + " entitlement: allocations holding less than their quota (entitlement x healthy GPUs) go"
                            + " first and reclaim from allocations above theirs, the lookback window orders the rest"),
            SettingSpec.number("reclaim-margin", 0.1,
                    "with ranking=entitlement, a preemption between allocations must leave the victim's allocation"
                            + " holding at least (1 + this) x its quota: hysteresis, so allocations near their quota"
                            + " never preempt each other").withRange(AT_LEAST_0),
            SettingSpec.integer("max-reservations", 2,
                    "with reservation=true, how many blocked gangs hold nodes at once (in serving order)")
                    .withRange(RESERVATIONS_RANGE),
            SettingSpec.duration("starvation-limit", Duration.ofHours(1),
                    "with ranking=entitlement, work of an owed allocation that asks for more GPUs than the"
                            + " allocation's quota and has waited this long may take turns with any allocation standing"
                            + " higher that it ranks above on lookback usage (it could otherwise wait forever)"),
            SettingSpec.number("waste-limit", 0,
                    "0: no limit; else a preemption may throw away at most this x the preemptor's GPUs x its minimum"
                            + " runtime of each allocated victim's work (at least 1 GPU-hour); unallocated work is"
                            + " exempt").withRange(AT_LEAST_0 + " (0: no limit)"),
            SettingSpec.choice("placement", Placement.PROTECTION.label, Placement.labels(),
                    "protection: small allocated work goes to the node it pins least (its protection pushes that node's"
                            + " latest protection end out the least, in GPU-seconds, plus the work its victims lose), so"
                            + " protections gather and gangs find whole nodes; best-fit: the fullest node that fits"),
            SettingSpec.bool("shortcuts", true,
                    "skip victim searches that provably fail (failed-search memo, whole-node bound); false decides"
                            + " exactly the same, slower: for verification"),
            SettingSpec.number("burst-reserve", 1.0,
                    "with ranking=entitlement, protected work whose start takes its allocation beyond its quota waits"
                            + " while the GPUs that could be handed over at once (idle, unallocated, unprotected beyond"
                            + " a quota) would not cover this x the other allocations' unused quotas; GPUs still idle"
                            + " after unallocated work go to it anyway. 0: off").withRange(AT_LEAST_0 + " (0: off)"),
            SettingSpec.duration("burst-short-protection", Duration.ofMinutes(30),
                    "work protected at most this long (debug work) is exempt from burst-reserve"),
            SettingSpec.duration("min-turn", MIN_TURN_DEFAULT,
                    "with ranking=entitlement, an allocation that is not owed takes other allocations' work that"
                            + " was preempted before only once its run has lasted this long, whatever its minimum"
                            + " runtime: work is not passed back and forth beyond quotas faster; reclaiming what is"
                            + " owed is not held back. 0: off"));


    public AllocationSettings {
        if (fairshareRecheck.isNegative() || fairshareRecheck.isZero()) {
            throw new IllegalArgumentException("fairshare-recheck must be positive, got " + Durations.format(fairshareRecheck));
        }
        if (!(reclaimMargin >= 0) || Double.isInfinite(reclaimMargin)) {
            // the number as typed (-1), not as Java spells a double (-1.0)
            throw new IllegalArgumentException("reclaim-margin must be a number " + AT_LEAST_0 + ", got "
                    + Decimals.plain(reclaimMargin));
        }
        checkReservations(maxReservations);
        if (starvationLimit.isNegative()) {
            throw new IllegalArgumentException("starvation-limit must not be negative, got "
                    + Durations.format(starvationLimit));
        }
        if (!(burstReserve >= 0) || Double.isInfinite(burstReserve)) {
            throw new IllegalArgumentException("burst-reserve must be a number " + AT_LEAST_0 + " (0: off), got "
                    + Decimals.plain(burstReserve));
        }
        if (burstShortProtection.isNegative()) {
            throw new IllegalArgumentException("burst-short-protection must not be negative, got "
                    + Durations.format(burstShortProtection));
        }
        if (minTurn.isNegative()) {
            throw new IllegalArgumentException("min-turn must not be negative (0: off), got " + Durations.format(minTurn));
        }
        if (!(wasteLimit >= 0) || Double.isInfinite(wasteLimit)) {
            throw new IllegalArgumentException("waste-limit must be a number " + AT_LEAST_0 + " (0: no limit), got "
                    + Decimals.plain(wasteLimit));
        }
    }

    /** Throws unless {@code n} blocked gangs may hold nodes at once; the message names {@code n} as it was given. */
    private static void checkReservations(long n) {
        if (n < MIN_RESERVATIONS || n > MAX_RESERVATIONS) {
            throw new IllegalArgumentException("max-reservations must be " + MIN_RESERVATIONS + " to " + MAX_RESERVATIONS
                    + ", got " + n);
        }
    }

    /** The settings read from values already checked against {@link #SPECS}. */
    public static AllocationSettings from(Settings s) {
        // checked before it is made an int: 99999999999 was clamped and then said as 'got 2147483647'
        long given = s.integer("max-reservations");
        checkReservations(given);
        int reservations = (int) given;
        return new AllocationSettings(s.duration("fairshare-recheck"), s.bool("reservation"),
                Ranking.parse(s.text("ranking")), s.number("reclaim-margin"), reservations,
                s.duration("starvation-limit"), s.number("waste-limit"), Placement.parse(s.text("placement")),
                s.bool("shortcuts"), s.number("burst-reserve"), s.duration("burst-short-protection"),
                s.duration("min-turn"));
    }
}
