package dev.allot.core.explain;

import dev.allot.core.model.Decimals;
import dev.allot.core.model.Durations;
import dev.allot.core.model.Words;
import dev.allot.core.policy.allocation.FairShare;
import dev.allot.core.policy.allocation.preemption.Ranking;
import dev.allot.core.state.JobState;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongFunction;

/**
 * Why a workload is where it is, at {@code atSeconds}, in data ({@link WaitExplainer} makes it) and in plain words
 * ({@link #summary}).
 *
 * @param position   where it stands among the waiting work; null unless it waits
 * @param fairShare  the fair-share numbers of its allocation's path, from the root's child down to the leaf
 * @param waitsFor   what it waits for; null unless it waits
 * @param protection whether it is protected and who may preempt it; null unless it runs
 * @param minRuntimeNote what the minimum runtime cap did to its declared minimum runtime
 *                       ({@code SchedulerConfig.minRuntimeCapNote}); null when the cap does not apply
 * @param ranking    the allocation policy's {@code ranking} setting: the rule between allocations in force
 * @param reclaimMargin the {@code reclaim-margin} setting: under {@link Ranking#ENTITLEMENT}, owed allocations reclaim
 *                   only from allocations holding at least {@code 1 + reclaimMargin} x their quota
 * @param standing   the instant standing of its allocation under {@link Ranking#ENTITLEMENT}; null under
 *                   {@link Ranking#LOOKBACK} and for unallocated work (which is never owed)
 * @param otherStandings under {@link Ranking#ENTITLEMENT}, the instant standings of the other allocations whose
 *                   protected work {@code waitsFor} names, in order of first mention; empty otherwise
 * @param hosts      the hosts that are not healthy (they take no new work) and the GPUs of the healthy ones
 */
public record WaitExplanation(
        String jobId,
        String allocation,
        boolean allocated,
        JobState state,
        long atSeconds,
        long windowSeconds,
        int gpus,
        int gpusPerNode,
        QueuePosition position,
        List<FairShareLevel> fairShare,
        WaitsFor waitsFor,
        Protection protection,
        String minRuntimeNote,
        Ranking ranking,
        double reclaimMargin,
        Standing standing,
        List<Standing> otherStandings,
        Starvation starvation,
        Hosts hosts) {

    public WaitExplanation {
        fairShare = List.copyOf(fairShare);
        otherStandings = List.copyOf(otherStandings);
    }

    /**
     * The hosts that take no new work (unhealthy: draining or drained) when the explanation was made.
     *
     * @param unhealthyCount how many hosts are not healthy
     * @param unhealthy      the first {@link WaitExplainer#MAX_NAMED} of them by name
     * @param healthyGpus    the GPUs of the healthy hosts
     * @param totalGpus      the GPUs of every host
     */
    public record Hosts(int unhealthyCount, List<String> unhealthy, int healthyGpus, int totalGpus) {
        public Hosts {
            unhealthy = List.copyOf(unhealthy);
        }

        /** No host unhealthy. */
        public static Hosts allHealthy(int totalGpus) {
            return new Hosts(0, List.of(), totalGpus, totalGpus);
        }
    }

    /**
     * For waiting work of an owed allocation under {@link Ranking#ENTITLEMENT} that asks for more GPUs than the
     * allocation's quota: from when it may take turns as starving work ({@code policy.allocation.preemption.PreemptionRules}).
     *
     * @param fromSeconds  its submission plus the starvation limit
     * @param limitSeconds the {@code starvation-limit} setting
     */
    public record Starvation(long fromSeconds, long limitSeconds) {
    }

    /**
     * An allocation's instant standing, the numbers {@link Ranking#ENTITLEMENT} decides by
     * ({@code policy.allocation.Entitlements}, read from the state as a fresh cycle reads it).
     *
     * @param entitlement its fraction of the cluster (the product of the shares down its path)
     * @param healthyGpus the healthy GPUs the quota is a share of
     * @param quotaGpus   entitlement x healthy GPUs: what it is owed while its demand lasts (fractional)
     * @param heldGpus    the allocated GPUs its running work holds
     * @param standing    heldGpus over quotaGpus; +infinity when the quota is zero
     * @param owed        it holds less than its quota: its waiting work goes first and may reclaim
     */
    public record Standing(String allocation, double entitlement, int healthyGpus, double quotaGpus, long heldGpus,
                           double standing, boolean owed) {
    }

    /**
     * Where a waiting workload stands, 1-based, in the order the policy serves waiting work: allocated work
     * allocation by allocation in fair-share order, recomputed after each start (a start commits its minimum runtime
     * to its allocation's usage, so allocations interleave), inside an allocation by priority, submission and id;
     * unallocated work after all allocated work. The numbers assume every start ahead succeeds.
     *
     * @param waitingInAllocation waiting workloads of its allocation, allocated and unallocated
     */
    public record QueuePosition(int position, int waiting, int positionInAllocation, int waitingInAllocation) {
    }

    /**
     * One level of the allocation's path.
     *
     * @param usageGpuSeconds    what fair share charges the subtree: GPU-seconds run inside the lookback window plus
     *                           {@code committedGpuSeconds}
     * @param committedGpuSeconds the unrun part of the protected minimum runtimes of the subtree's running work: GPU-seconds
     *                           charged in advance (a start commits its minimum runtime); {@code budget usage} does
     *                           not count them, it shows what ran
     * @param entitlement        the fraction of the cluster the node is entitled to
     * @param entitledGpuSeconds what the entitlement buys over the window (entitlement x cluster GPUs x window)
     * @param ratio              usage over what the entitlement buys; +infinity when the entitlement is zero
     * @param rank               1-based rank among its siblings (lowest ratio first, then name)
     */
    public record FairShareLevel(String name, String parent, long usageGpuSeconds, long committedGpuSeconds,
                                 double entitlement, double entitledGpuSeconds, double ratio, int rank, int siblings) {
        /** GPU-seconds run inside the window: what {@code budget usage} shows for the same node and window. */
        public long runGpuSeconds() {
            return usageGpuSeconds - committedGpuSeconds;
        }
    }

    /**
     * A running workload's protection.
     *
     * @param protectedNow          inside its minimum runtime at {@code atSeconds}
     * @param protectedUntilSeconds when its minimum runtime ends (or ended); for unallocated work its start
     * @param preemptibleByCount    waiting workloads that may preempt it (now, or once its protection ends)
     * @param preemptibleByIds      the first of them in serving order, at most {@link WaitExplainer#MAX_NAMED}
     */
    /**
     * Whether running work is protected and who may preempt it; {@code unhealthyHosts}: the hosts it runs on that
     * take no new work (it is drained when its protection ends); {@code resumable}: whether a drain requeues it.
     */
    public record Protection(boolean protectedNow, long protectedUntilSeconds, long minRuntimeSeconds,
                             int preemptibleByCount, List<String> preemptibleByIds, List<String> unhealthyHosts,
                             boolean resumable) {
        public Protection {
            preemptibleByIds = List.copyOf(preemptibleByIds);
            unhealthyHosts = List.copyOf(unhealthyHosts);
        }

    }

    /** The plain-words sentences, with times shown as {@code t=<seconds>s}. */
    public List<String> summary() {
        return summary(s -> "t=" + s + "s");
    }

    /** The plain-words sentences, with absolute times shown by {@code time} (given seconds on the state's clock). */
    public List<String> summary(LongFunction<String> time) {
        List<String> out = new ArrayList<>();
        switch (state) {
            case PENDING -> {
                out.add(jobId + " waits: " + Words.ordinal(position.position()) + " of " + position.waiting() + " waiting; "
                        + Words.ordinal(position.positionInAllocation()) + " of " + position.waitingInAllocation() + " in "
                        + allocation + (allocated ? "." : " (unallocated work comes after all allocated work)."));
                out.add(fairShareSentence());
                if (standing != null) {
                    out.add(standingSentence());
                }
                out.add(waitsForSentence(time));
                if (starvation != null) {
                    out.add(starvationSentence(time));
                }
                if (hosts != null && hosts.unhealthyCount() > 0) {
                    out.add(hostsSentence());
                }
            }
            case RUNNING -> {
                out.add(jobId + " runs in " + allocation + ".");
                out.add(protectionSentence(time));
                out.add(fairShareSentence());
                if (standing != null) {
                    out.add(standingSentence());
                }
            }
            default -> {
                out.add(jobId + " is " + state.name().toLowerCase(java.util.Locale.ROOT) + "; it no longer waits.");
                out.add(fairShareSentence());
            }
        }
        if (minRuntimeNote != null) {
            out.add(1, Character.toUpperCase(minRuntimeNote.charAt(0)) + minRuntimeNote.substring(1) + ".");
        }
        return List.copyOf(out);
    }

    private String fairShareSentence() {
        StringBuilder sb = new StringBuilder("Over the last " + Durations.formatSeconds(windowSeconds) + ": ");
        for (int i = 0; i < fairShare.size(); i++) {
            FairShareLevel l = fairShare.get(i);
            if (i > 0) {
                sb.append("; ");
            }
            sb.append(l.name()).append(Double.isInfinite(l.ratio()) ? " has " : " has been charged ")
                    .append(FairShare.usedOfEntitlement(l.ratio(), l.usageGpuSeconds(), l.entitledGpuSeconds()));
            if (l.committedGpuSeconds() > 0) {
                sb.append(": ").append(Decimals.significant(l.runGpuSeconds() / 3600.0, 3)).append(" run plus ")
                        .append(Decimals.significant(l.committedGpuSeconds() / 3600.0, 3))
                        .append(" committed to protected minimum runtimes");
            }
            sb
                    .append(", ranking ").append(Words.ordinal(l.rank())).append(" of ").append(l.siblings())
                    .append(i == 0 ? " at the top" : " under " + l.parent());
        }
        return sb.append('.').toString();
    }

    /**
     * "Right now A holds 0 GPUs of its quota of 3.2 (entitlement 40% x 8 healthy GPUs): it is owed GPUs, ...": the
     * instant half of the rule under {@link Ranking#ENTITLEMENT}, in words and numbers.
     */
    private String standingSentence() {
        Standing s = standing;
        String margin = short3(1 + reclaimMargin);
        String numbers = "(entitlement " + short3(s.entitlement() * 100) + "% x " + Words.count(s.healthyGpus(), "healthy GPU");
        if (!(s.quotaGpus() > 0)) {
            return "Right now " + allocation + " holds " + Words.count(s.heldGpus(), "GPU") + " and has no quota "
                    + numbers + "): it is never owed, so its waiting work comes after that of owed allocations, and"
                    + " owed allocations may reclaim all it holds.";
        }
        String head = "Right now " + allocation + " holds " + Words.count(s.heldGpus(), "GPU") + " of its quota of "
                + short3(s.quotaGpus()) + " " + numbers;
        if (s.owed()) {
            return head + "): it is owed GPUs, so its waiting work goes first and may reclaim from allocations holding"
                    + " at least " + margin + " x their quota, down to their quota; from those it is ahead of on the"
                    + " lookback window it may take more, below their quota, while it would stand no higher than they"
                    + " do (taking turns).";
        }
        head += "; standing " + short3(s.standing()) + "): ";
        String after = "; its waiting work comes after that of owed allocations, in lookback order.";
        if (s.standing() < 1 + reclaimMargin - 1e-9) {
            return head + "it is at or above its quota but below " + margin + " x it, so no allocation reclaims from it"
                    + " (only starving work larger than its own allocation's quota may take turns with it)" + after;
        }
        return head + "it holds at least " + margin + " x its quota, so owed allocations may reclaim from it down to its"
                + " quota (and allocations ahead of it on the lookback window may take turns with it)" + after;
    }

    /**
     * "It asks for more GPUs than its allocation's quota ...": when the starvation rule gives it the right to take
     * turns, and what that right is.
     */
    private String starvationSentence(LongFunction<String> time) {
        String limit = dev.allot.core.model.Durations.formatSeconds(starvation.limitSeconds());
        String right = "take turns with allocations standing higher than its own that it is ahead of on the lookback"
                + " window, taking their unprotected work that fits within their own quotas";
        String head = "It asks for more GPUs (" + gpus + ") than " + allocation + "'s quota of "
                + short3(standing.quotaGpus()) + ", so reclaiming alone may never pay for it: ";
        if (atSeconds >= starvation.fromSeconds()) {
            return head + "it has waited past the starvation limit (" + limit + ", since "
                    + time.apply(starvation.fromSeconds()) + "), so while " + allocation + " is owed it may also "
                    + right + ".";
        }
        return head + "from " + time.apply(starvation.fromSeconds()) + " (after the starvation limit of " + limit
                + ") it may also " + right + ", if " + allocation + " is still owed then.";
    }

    /** {@link Decimals#significant} with 3 digits, without trailing zeros: 8, 3.2, 1.1, 0.333. */
    static String short3(double x) {
        String t = Decimals.significant(x, 3);
        if (t.indexOf('.') >= 0) {
            t = t.replaceAll("0+$", "");
            if (t.endsWith(".")) {
                t = t.substring(0, t.length() - 1);
            }
        }
        return t;
    }

    private String protectionSentence(LongFunction<String> time) {
        Protection p = protection;
        String first;
        if (!allocated) {
            first = "It runs unallocated: it is never protected and any waiting allocated work may preempt it.";
        } else if (p.protectedNow()) {
            first = "It is protected by its " + Durations.formatSeconds(p.minRuntimeSeconds()) + " minimum runtime until "
                    + time.apply(p.protectedUntilSeconds()) + " (in " + Durations.formatSeconds(p.protectedUntilSeconds() - atSeconds)
                    + "); nobody may preempt it before then.";
        } else {
            first = "Its " + Durations.formatSeconds(p.minRuntimeSeconds()) + " minimum runtime ended at "
                    + time.apply(p.protectedUntilSeconds()) + "; it may be preempted.";
        }
        String second;
        if (p.preemptibleByCount() == 0) {
            second = " No waiting workload may preempt it" + (!allocated ? "."
                    : ranking == Ranking.LOOKBACK ? ": none ranks above its allocation or has a higher priority in it."
                    : ": the rules let none take GPUs from its allocation now, and none has a higher priority in it.");
        } else {
            int n = p.preemptibleByCount();
            second = " " + Words.count(n, "waiting workload") + " may preempt it"
                    + (!p.protectedNow() ? "" : ranking == Ranking.LOOKBACK
                            ? " once its protection ends, if the ranking then still allows it"
                            : " once its protection ends, if the rules then still allow it")
                    + ": " + names(p.preemptibleByIds(), n) + ".";
        }
        return first + second + drainSentence(time);
    }

    /** " Its host n1 is unhealthy: ..." when the work runs on a host that takes no new work; else empty. */
    private String drainSentence(LongFunction<String> time) {
        Protection p = protection;
        if (p.unhealthyHosts().isEmpty()) {
            return "";
        }
        String hostsWord = p.unhealthyHosts().size() == 1 ? "Its host " + p.unhealthyHosts().get(0) + " is"
                : "Its hosts " + String.join(", ", p.unhealthyHosts()) + " are";
        String outcome = p.resumable() ? "preempted and requeued" : "preempted; it cannot resume, so it ends";
        return " " + hostsWord + " unhealthy and take" + (p.unhealthyHosts().size() == 1 ? "s" : "") + " no new work: it"
                + (allocated && p.protectedNow() ? " is drained when its protection ends at "
                + time.apply(p.protectedUntilSeconds()) : " is drained at the scheduler's next cycle") + " ("
                + outcome + ").";
    }

    /**
     * How the sentence on unhealthy hosts begins: the dashboard's queue shows, beside the badge of what work waits
     * for, the last sentence that is not one of the others, and tells them by how they begin.
     */
    public static final String HOSTS_SENTENCE = "Hosts that take no new work";

    /** Which hosts take no new work, named, and what the healthy ones have. */
    private String hostsSentence() {
        Hosts h = hosts;
        String names = names(h.unhealthy(), h.unhealthyCount());
        return HOSTS_SENTENCE + " (unhealthy): " + names + "; the healthy hosts have "
                + Words.count(h.healthyGpus(), "GPU") + " of " + h.totalGpus() + "."
                + (gpus > h.healthyGpus() ? " It asks for " + gpus + ": it cannot start until hosts are healthy again."
                : "");
    }

    private String waitsForSentence(LongFunction<String> time) {
        String shape = dev.allot.core.rules.ShapeFit.describe(gpus, gpusPerNode);
        // Java 17: no pattern matching in switch yet, so an instanceof chain over the sealed kinds
        WaitsFor w = waitsFor;
        if (w instanceof WaitsFor.StartsNow s) {
            return "Nothing blocks it: it starts in the next scheduling cycle"
                    + (s.preemptsIds().isEmpty() ? "." : ", after preempting " + String.join(", ", s.preemptsIds()) + ".");
        }
        if (w instanceof WaitsFor.HigherRankedWork h) {
            return "It needs " + shape + "; " + h.idleGpus() + " " + Words.verb(h.idleGpus(), "is", "are") + " idle and "
                    + h.preemptibleGpus() + " could be preempted, but the " + Words.count(h.waitingAhead(), "workload")
                    + " ahead of it (" + Words.count(h.gpusAhead(), "GPU") + ") "
                    + Words.verb(h.waitingAhead(), "is", "are") + " served first.";
        }
        if (w instanceof WaitsFor.Gang g) {
            String needs = g.wholeNodes()
                    ? "It needs " + Words.count(g.nodesNeeded(), "whole node") + " of " + g.gpusPerNode() + " GPUs; "
                            + g.nodesWithRoom() + " " + Words.verb(g.nodesWithRoom(), "is", "are") + " free."
                    : "It is a gang that needs " + Words.count(g.nodesNeeded(), "node") + " with "
                            + Words.count(g.gpusPerNode(), "idle GPU") + " each; " + g.nodesWithRoom() + " "
                            + Words.verb(g.nodesWithRoom(), "has", "have") + " that many.";
            if (g.roomAtSeconds() < 0) {
                return needs + " Ends of protection do not free enough nodes it may take: it waits for work it may not"
                        + " preempt to end, or for its allocation to rank higher.";
            }
            if (g.protectedWork().isEmpty()) {
                return needs + " Enough nodes could be freed now by preempting work it may preempt; the policy serves"
                        + " work ahead of it first.";
            }
            return needs + " Enough nodes have room at " + time.apply(g.roomAtSeconds()) + " (in "
                    + Durations.formatSeconds(g.roomAtSeconds() - atSeconds) + "), when the "
                    + protectionOrTurn(g.protectedWork()) + " of " + protectedNames(g.protectedWork()) + " ends, "
                    + ifStillRanked(g.protectedWork());
        }
        if (w instanceof WaitsFor.ProtectedUntil p) {
            return "It needs " + shape + "; " + p.idleGpus() + " " + Words.verb(p.idleGpus(), "is", "are") + " idle and "
                    + p.preemptibleGpus() + " could be preempted now; the " + protectionOrTurn(p.protectedWork())
                    + " of " + protectedNames(p.protectedWork())
                    + " ends at " + time.apply(p.untilSeconds()) + " (in " + Durations.formatSeconds(p.untilSeconds() - atSeconds)
                    + "), " + ifStillRanked(p.protectedWork());
        }
        if (w instanceof WaitsFor.Gpus g) {
            return "It needs " + shape + "; " + g.idleGpus() + " " + Words.verb(g.idleGpus(), "is", "are") + " idle, "
                    + g.preemptibleGpus() + " could be preempted now and " + g.preemptibleLaterGpus()
                    + " once their protection ends: too few, so it waits for work it may not preempt to end, or for its"
                    + " allocation to rank higher.";
        }
        if (w instanceof WaitsFor.BurstReserve b) {
            return "It needs " + shape + "; its start would take its allocation beyond its quota with protected"
                    + " work, leaving " + Math.max(0, b.quickGpus() - b.neededGpus()) + " GPUs that could be handed"
                    + " over at once (idle, unallocated, or unprotected beyond a quota) where the burst reserve keeps "
                    + short3(b.reserve()) + " x the other allocations' unused quotas (" + short3(b.roomGpus())
                    + " GPUs). It starts when enough of that room is used or can be handed over, or on GPUs that"
                    + " unallocated work leaves idle.";
        }
        WaitsFor.Unallocated u = (WaitsFor.Unallocated) w;
        return "It is unallocated (minimum runtime 0): it runs only on GPUs no waiting allocated work uses ("
                + Words.count(u.allocatedWaiting(), "allocated workload") + " "
                + Words.verb(u.allocatedWaiting(), "waits", "wait") + ") and never preempts; it needs " + shape + " and "
                + u.idleGpus() + " " + Words.verb(u.idleGpus(), "is", "are") + " idle.";
    }

    /**
     * The end of a promise to preempt {@code work} later: certain only for work of its own allocation (a lower
     * priority stays lower); for other allocations it holds only if the rule in force then still allows it: under
     * {@link Ranking#LOOKBACK} the fair-share ranking, under {@link Ranking#ENTITLEMENT} the standings (given now,
     * in numbers), and both change as work runs and ends.
     */
    private String ifStillRanked(List<WaitsFor.ProtectedWork> work) {
        boolean otherAllocations = false;
        for (WaitsFor.ProtectedWork pw : work) {
            otherAllocations |= !pw.allocation().equals(allocation);
        }
        if (!otherAllocations) {
            return "after which it may preempt them (they have a lower priority in its allocation).";
        }
        if (ranking == Ranking.LOOKBACK || standing == null) {
            return "after which it may preempt them if its allocation still ranks above theirs then.";
        }
        StringBuilder sb = new StringBuilder("after which it may preempt them if the rules still allow it then (its"
                + " allocation holds " + standing.heldGpus() + " of its quota of " + short3(standing.quotaGpus()) + " GPUs");
        for (Standing o : otherStandings) {
            sb.append("; ").append(o.allocation()).append(" holds ").append(o.heldGpus());
            sb.append(o.quotaGpus() > 0 ? " of its quota of " + short3(o.quotaGpus()) : " and has no quota");
        }
        return sb.append(").").toString();
    }

    /** "protection", or "protection or shortest turn" when some of the work waits for its shortest turn. */
    private static String protectionOrTurn(List<WaitsFor.ProtectedWork> work) {
        return work.stream().anyMatch(WaitsFor.ProtectedWork::turn) ? "protection or shortest turn" : "protection";
    }

    private static String protectedNames(List<WaitsFor.ProtectedWork> work) {
        List<String> names = new ArrayList<>();
        for (WaitsFor.ProtectedWork w : work) {
            names.add(w.id() + " (" + w.allocation() + ", " + Words.count(w.gpus(), "GPU")
                    + (w.turn() ? ", whose run must first last the shortest turn" : "") + ")");
        }
        return String.join(", ", names);
    }

    private static String names(List<String> ids, int count) {
        return String.join(", ", ids) + (count > ids.size() ? " and " + (count - ids.size()) + " more" : "");
    }
}
