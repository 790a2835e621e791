package dev.allot.sim.generate;

import java.util.SplittableRandom;

/**
 * The generator's random streams: each purpose draws from its own {@link SplittableRandom}, seeded by mixing the
 * scenario seed with the purpose's labels: one for the host failures ({@code health}), one per team for its activity
 * pattern ({@code activity, team}), one per team and kind for its workloads ({@code workloads, team, kind}) and one
 * per team and budget kind for its backlog ({@code backlog, team, kind}). Streams do not depend on each other or on
 * the order they are drawn in, so changing one team's traits (users, priority inflation, activity) leaves every other
 * team's workloads unchanged. A change that moves volume between teams (a share, an intensity, an affinity) only
 * lengthens or shortens the other teams' streams: the workloads they keep are the same. The workload ids, given in
 * submission order, do shift.
 *
 * <p>A class of its own because the mixing is a fixed part of every generated scenario: changing it changes every
 * workload of every seed (and {@code examples/lab}), whatever else the generator does.
 */
final class RandomStreams {
    private RandomStreams() {
    }

    /**
     * An independent random stream for a purpose named by labels, e.g. ("workloads", team, kind). The stream's seed
     * mixes the scenario seed with a hash of each label, so a stream does not depend on how many other streams
     * there are or in which order they are drawn: adding a team or changing one team's numbers leaves every other
     * team's draws as they were.
     */
    static SplittableRandom stream(long seed, String... labels) {
        long h = mix64(seed ^ 0x9E3779B97F4A7C15L);
        for (String label : labels) {
            h = mix64(h ^ mix64(fnv1a(label)));
        }
        return new SplittableRandom(h);
    }

    /** 64-bit FNV-1a of the string's UTF-16 code units: fixed by this code, unlike String.hashCode's 32 bits. */
    private static long fnv1a(String s) {
        long h = 0xcbf29ce484222325L;
        for (int i = 0; i < s.length(); i++) {
            h ^= s.charAt(i);
            h *= 0x100000001b3L;
        }
        return h;
    }

    /** The SplitMix64 finaliser: a bijective bit mixer. */
    private static long mix64(long z) {
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
        return z ^ (z >>> 31);
    }
}
