package dev.allot.sim.report;

import dev.allot.core.model.Words;
import dev.allot.sim.input.InputException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Two runs of the same workloads set side by side, from their {@link WorkloadsCsv} files ({@code allot compare
 * A.csv B.csv}): typically the simulator's ({@code simulate --workloads-out}) and a live service's ({@code replay
 * --workloads-out}). It answers how far apart each workload started (B minus A, over the workloads that started in
 * both), the waits of each run, the preemptions of each and the workloads whose final states differ. Everything is
 * over the workloads in both files; the others are listed by id. Percentiles are nearest-rank (the value at
 * position ceil(p/100 x n) in sorted order), so every number printed is one a workload had.
 */
public final class RunComparison {
    /** One file's rows of the policy compared. */
    public record Side(String file, String policy, List<WorkloadsCsv.Row> rows) {
        public Side {
            rows = List.copyOf(rows);
        }
    }

    /** Nearest-rank percentiles of a list of seconds; all zero when {@code count} is 0. */
    public record Spread(int count, double p50Seconds, double p90Seconds, double p99Seconds, double maxSeconds) {
        static Spread of(List<Double> values) {
            List<Double> v = new ArrayList<>(values);
            Collections.sort(v);
            return new Spread(v.size(), percentile(v, 50), percentile(v, 90), percentile(v, 99),
                    v.isEmpty() ? 0 : v.get(v.size() - 1));
        }
    }

    /** A workload whose final state is not the same in both runs. */
    public record StateDifference(String id, String stateA, String stateB) {
    }

    /**
     * @param absoluteStartError |B's first start - A's|, over the workloads started in both
     * @param medianSignedStartErrorSeconds the median of B's first start minus A's (positive: B started later)
     * @param waitsA     A's waits over the workloads in both that started in A
     * @param differentPreemptionCounts workloads whose preemption counts differ
     */
    public record Result(Side a, Side b, int inBoth, List<String> onlyInA, List<String> onlyInB,
                         Spread absoluteStartError, double medianSignedStartErrorSeconds, Spread waitsA, Spread waitsB,
                         int preemptionsA, int preemptionsB, int differentPreemptionCounts,
                         Map<String, Integer> finalStatesA, List<StateDifference> stateDifferences) {
    }

    private RunComparison() {
    }

    /**
     * The rows of each file to compare. A file of one policy is taken whole; a file of several (simulate with
     * {@code --policy allocation,legacy}) gives the rows of {@code policy}, or when that is null of the policy the
     * other file holds alone. Refuses a file with no rows, several policies and no way to choose, or a {@code policy}
     * that neither file holds.
     */
    public static List<Side> choose(String fileA, List<WorkloadsCsv.Row> rowsA, String fileB,
                                    List<WorkloadsCsv.Row> rowsB, String policy) {
        Set<String> policiesA = policies(fileA, rowsA);
        Set<String> policiesB = policies(fileB, rowsB);
        if (policy != null && policiesA.size() == 1 && policiesB.size() == 1 && !policiesA.contains(policy)
                && !policiesB.contains(policy)) {
            // a file of one policy is taken whole, so '--policy kueue' of two allocation runs compared them and
            // printed 'policy allocation' as if the option had not been given (a file of several refuses it below)
            throw new IllegalArgumentException("--policy '" + policy + "': neither file holds its rows (" + fileA
                    + ": " + String.join(", ", policiesA) + "; " + fileB + ": " + String.join(", ", policiesB)
                    + "); name a policy one of them holds, or leave --policy out");
        }
        String wantA = policy != null ? policy : policiesB.size() == 1 ? policiesB.iterator().next() : null;
        String wantB = policy != null ? policy : policiesA.size() == 1 ? policiesA.iterator().next() : null;
        return List.of(side(fileA, rowsA, policiesA, wantA, policy != null), side(fileB, rowsB, policiesB, wantB,
                policy != null));
    }

    private static Set<String> policies(String file, List<WorkloadsCsv.Row> rows) {
        if (rows.isEmpty()) {
            throw new InputException(file, 0, 0, null, "no workload rows; expected a CSV written by allot simulate"
                    + " --workloads-out or allot replay --workloads-out");
        }
        Set<String> out = new LinkedHashSet<>();
        rows.forEach(r -> out.add(r.policy()));
        return out;
    }

    private static Side side(String file, List<WorkloadsCsv.Row> rows, Set<String> policies, String want,
                             boolean asked) {
        if (policies.size() == 1) {
            String only = policies.iterator().next();
            return new Side(file, only, rows);
        }
        if (want == null || !policies.contains(want)) {
            throw new InputException(file, 0, 0, "policy", "holds the rows of policies " + String.join(", ", policies)
                    + (asked ? ", not '" + want + "'" : "") + "; choose one with --policy NAME");
        }
        return new Side(file, want, rows.stream().filter(r -> r.policy().equals(want)).toList());
    }

    /** Compares B against A, workload by workload (matched on id); deterministic: lists sorted by id. */
    public static Result compare(Side a, Side b) {
        Map<String, WorkloadsCsv.Row> byIdA = byId(a);
        Map<String, WorkloadsCsv.Row> byIdB = byId(b);
        Set<String> both = new TreeSet<>(byIdA.keySet());
        both.retainAll(byIdB.keySet());
        if (both.isEmpty()) {
            throw new InputException(b.file(), 0, 0, "id", "no workload id is also in " + a.file()
                    + "; expected two runs of the same workloads (e.g. the first ids: " + firstIds(byIdA) + " and "
                    + firstIds(byIdB) + ")");
        }
        List<String> onlyA = new ArrayList<>(new TreeSet<>(byIdA.keySet()));
        onlyA.removeAll(both);
        List<String> onlyB = new ArrayList<>(new TreeSet<>(byIdB.keySet()));
        onlyB.removeAll(both);
        List<Double> absolute = new ArrayList<>();
        List<Double> signed = new ArrayList<>();
        List<Double> waitsA = new ArrayList<>();
        List<Double> waitsB = new ArrayList<>();
        int preemptionsA = 0;
        int preemptionsB = 0;
        int differentCounts = 0;
        Map<String, Integer> statesA = new TreeMap<>();
        List<StateDifference> differences = new ArrayList<>();
        for (String id : both) {
            WorkloadsCsv.Row x = byIdA.get(id);
            WorkloadsCsv.Row y = byIdB.get(id);
            if (x.started() && y.started()) {
                double d = y.firstStartSeconds() - x.firstStartSeconds();
                signed.add(d);
                absolute.add(Math.abs(d));
            }
            if (x.started()) {
                waitsA.add(x.waitSeconds());
            }
            if (y.started()) {
                waitsB.add(y.waitSeconds());
            }
            preemptionsA += x.preemptions();
            preemptionsB += y.preemptions();
            if (x.preemptions() != y.preemptions()) {
                differentCounts++;
            }
            statesA.merge(x.finalState(), 1, Integer::sum);
            if (!x.finalState().equals(y.finalState())) {
                differences.add(new StateDifference(id, x.finalState(), y.finalState()));
            }
        }
        Collections.sort(signed);
        return new Result(a, b, both.size(), onlyA, onlyB, Spread.of(absolute), percentile(signed, 50),
                Spread.of(waitsA), Spread.of(waitsB), preemptionsA, preemptionsB, differentCounts, statesA,
                differences);
    }

    private static Map<String, WorkloadsCsv.Row> byId(Side s) {
        Map<String, WorkloadsCsv.Row> out = new LinkedHashMap<>();
        s.rows().forEach(r -> out.put(r.id(), r));
        return out;
    }

    private static String firstIds(Map<String, WorkloadsCsv.Row> rows) {
        return String.join(", ", rows.keySet().stream().sorted().limit(3).toList());
    }

    /** The nearest-rank percentile of sorted values; 0 for none. */
    static double percentile(List<Double> sorted, int p) {
        return dev.allot.sim.metrics.NearestRank.of(sorted, p / 100.0);
    }

    /** The comparison for people: one block, the files named as given. */
    public static String render(Result r) {
        String nameA = r.a().file();
        String nameB = r.b().file();
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "A: %s (policy %s, %d workloads)%nB: %s (policy %s, %d workloads)%n"
                        + "workloads in both: %d%n", nameA, r.a().policy(), r.a().rows().size(), nameB,
                r.b().policy(), r.b().rows().size(), r.inBoth()));
        if (!r.onlyInA().isEmpty()) {
            out.append("only in A: ").append(ids(r.onlyInA())).append('\n');
        }
        if (!r.onlyInB().isEmpty()) {
            out.append("only in B: ").append(ids(r.onlyInB())).append('\n');
        }
        Spread e = r.absoluteStartError();
        double signed = r.medianSignedStartErrorSeconds();
        out.append(String.format(Locale.ROOT, "start time, B minus A, over %d workloads started in both:"
                + " |error| median %s, p90 %s, max %s (signed median %s)%n", e.count(),
                Format.seconds(e.p50Seconds(), 2), Format.seconds(e.p90Seconds(), 2), Format.seconds(e.maxSeconds(), 2),
                (signed >= 0 ? "+" : "") + Format.seconds(signed, 2)));
        // each column over the workloads that started in its run (it said "in both that started" over counts that
        // differed: A's and B's started sets are not the same)
        out.append("waits of the workloads in both files, each run over those that started in it:\n");
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("", "A", "B"));
        rows.add(List.of("started", Integer.toString(r.waitsA().count()), Integer.toString(r.waitsB().count())));
        rows.add(List.of("p50", sec(r.waitsA().p50Seconds()), sec(r.waitsB().p50Seconds())));
        rows.add(List.of("p90", sec(r.waitsA().p90Seconds()), sec(r.waitsB().p90Seconds())));
        rows.add(List.of("p99", sec(r.waitsA().p99Seconds()), sec(r.waitsB().p99Seconds())));
        rows.add(List.of("max", sec(r.waitsA().maxSeconds()), sec(r.waitsB().maxSeconds())));
        rows.add(List.of("preemptions", Integer.toString(r.preemptionsA()), Integer.toString(r.preemptionsB())));
        table(out, rows);
        if (r.differentPreemptionCounts() > 0) {
            out.append(Words.count(r.differentPreemptionCounts(), "workload")).append(' ')
                    .append(Words.verb(r.differentPreemptionCounts(), "was", "were"))
                    .append(" preempted a different number of times\n");
        }
        if (r.stateDifferences().isEmpty()) {
            out.append("final states: the same for every workload in both (");
            List<String> parts = new ArrayList<>();
            r.finalStatesA().forEach((s, n) -> parts.add(s + " " + n));
            out.append(String.join(", ", parts)).append(")\n");
        } else {
            out.append("final states differ for ").append(Words.count(r.stateDifferences().size(), "workload"))
                    .append(":\n");
            List<List<String>> diff = new ArrayList<>();
            diff.add(List.of("  id", "A", "B"));
            r.stateDifferences().forEach(d -> diff.add(List.of("  " + d.id(), d.stateA(), d.stateB())));
            table(out, diff);
        }
        return out.toString();
    }

    private static String ids(List<String> ids) {
        return ids.size() <= 10 ? String.join(", ", ids)
                : String.join(", ", ids.subList(0, 10)) + " and " + (ids.size() - 10) + " more";
    }

    private static String sec(double s) {
        return Format.seconds(s, 1);
    }

    private static void table(StringBuilder out, List<List<String>> rows) {
        int[] width = new int[rows.get(0).size()];
        for (List<String> row : rows) {
            for (int i = 0; i < width.length; i++) {
                width[i] = Math.max(width[i], row.get(i).length());
            }
        }
        for (List<String> row : rows) {
            StringBuilder line = new StringBuilder();
            for (int i = 0; i < width.length; i++) {
                String c = row.get(i);
                line.append(i == 0 ? c + " ".repeat(width[i] - c.length()) : "  " + " ".repeat(width[i] - c.length()) + c);
            }
            out.append(line.toString().stripTrailing()).append('\n');
        }
    }
}
