package dev.allot.slurm;

import dev.allot.core.backend.Launch;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The GPUs Slurm actually gave a running job, node by node, as {@code scontrol -o -d show job ID} prints them
 * ({@code Nodes=n1 CPU_IDs=0 Mem=0 GRES=gpu:6(IDX:0-5)}; one such entry per group of nodes with the same allocation,
 * one line per component of a heterogeneous job), and how that compares with Allot's placement. The one rule of what
 * counts as "Slurm ran it where Allot placed it": on every node the same number of GPUs, and no GPU on another node
 * ({@link #mismatch}). The indexes (shown where {@code gres.conf} names devices with {@code File=}) are compared
 * apart ({@link #indexDifference}): Slurm 22.05 cannot be asked for particular indexes, and they differ for a reason
 * that harms no one: Allot's lanes ({@code GpuLanes}) avoid the GPUs of an attempt it still sees stopping, which
 * Slurm may have freed already (seen on the test cluster: Allot n4 IDX 1,6, Slurm IDX 1,4). What decides whether
 * the next job Allot places on a node can start there is the count.
 *
 * @param nodes node name to what it got there
 */
record SlurmAllocation(Map<String, NodeGres> nodes) {
    /** One node's GPUs: how many, and their indexes when Slurm knows them (empty otherwise). */
    record NodeGres(int gpus, List<Integer> indexes) {
        NodeGres {
            indexes = List.copyOf(indexes);
        }

        @Override
        public String toString() {
            return gpus + (gpus == 1 ? " GPU" : " GPUs") + (indexes.isEmpty() ? "" : " " + ranges(indexes));
        }
    }

    private static final Pattern ENTRY = Pattern.compile("(?:^|\\s)Nodes=(\\S+) CPU_IDs=\\S* Mem=\\S* GRES=(\\S*)");
    private static final Pattern STATE = Pattern.compile("(?:^|\\s)JobState=(\\S+)");
    private static final Pattern IDX = Pattern.compile("IDX:([0-9,\\-]+)");

    SlurmAllocation {
        nodes = java.util.Collections.unmodifiableMap(new TreeMap<>(nodes));
    }

    /**
     * Reads {@code scontrol -o -d show job}'s output (every line: a heterogeneous job prints one per component).
     * Only a complete answer reads: one that ends its last line, with a line for every component; a cut answer
     * ({@code GRES=} cut after the name reads as no GPUs) must not read as Slurm giving other GPUs.
     *
     * @throws IllegalArgumentException if it is cut short, names no node's allocation (the job is not running) or a
     *                                  part does not read; the message quotes it
     */
    static SlurmAllocation parse(String text) {
        if (!text.isEmpty() && !text.endsWith("\n")) {
            throw new IllegalArgumentException("scontrol -d show job's answer ends mid-line (" + text.length()
                    + " characters): cut short");
        }
        List<String> lines = text.lines().filter(l -> !l.isBlank()).toList();
        Matcher set = Pattern.compile("(?:^|\\s)HetJobIdSet=([0-9,\\-]+)").matcher(lines.isEmpty() ? "" : lines.get(0));
        if (set.find() && lines.size() != ids(set.group(1))) {
            throw new IllegalArgumentException("scontrol -d show job shows " + lines.size() + " of the "
                    + ids(set.group(1)) + " components of heterogeneous job " + set.group(1) + ": cut short");
        }
        for (String line : lines) {
            // A job that is ending (COMPLETING) still shows its nodes, with GRES= empty: that is no allocation to
            // compare (seen on the test cluster as "n4: 0 GPUs" for a job whose script had just exited).
            Matcher state = STATE.matcher(line);
            if (!state.find() || !state.group(1).equals("RUNNING")) {
                throw new IllegalArgumentException("scontrol -d show job shows the job "
                        + (state.find(0) ? state.group(1) : "in no state") + ", not RUNNING: no allocation to read");
            }
        }
        Map<String, NodeGres> out = new TreeMap<>();
        Matcher m = ENTRY.matcher(text);
        while (m.find()) {
            NodeGres g = gres(m.group(2));
            for (String node : HostList.expand(m.group(1))) {
                NodeGres before = out.get(node);
                if (before != null) {
                    // Two components on one node (Allot never asks for that): their GPUs add up.
                    List<Integer> idx = new ArrayList<>(before.indexes());
                    idx.addAll(g.indexes());
                    g = new NodeGres(before.gpus() + g.gpus(), new ArrayList<>(new TreeSet<>(idx)));
                }
                out.put(node, g);
            }
        }
        if (out.isEmpty()) {
            String t = text.strip();
            throw new IllegalArgumentException("scontrol -d show job printed no per-node allocation (Nodes=... GRES=...)"
                    + "; got '" + (t.length() > 200 ? t.substring(0, 200) + "..." : t) + "'");
        }
        return new SlurmAllocation(out);
    }

    /** How many job ids {@code 13-15} or {@code 13,15} names. */
    private static int ids(String set) {
        int n = 0;
        for (String r : set.split(",")) {
            String[] ab = r.split("-");
            n += ab.length > 1 ? Integer.parseInt(ab[1]) - Integer.parseInt(ab[0]) + 1 : 1;
        }
        return n;
    }

    /** The GPUs in one {@code GRES=} value: {@code gpu:6(IDX:0-5)}, {@code gpu:a100:2(IDX:0,3),mps:0}, empty. */
    static NodeGres gres(String value) {
        int gpus = 0;
        TreeSet<Integer> idx = new TreeSet<>();
        for (String part : value.split(",(?![^()]*\\))")) {
            String p = part.strip();
            if (!p.startsWith("gpu")) {
                continue;
            }
            int paren = p.indexOf('(');
            String head = paren >= 0 ? p.substring(0, paren) : p;
            String[] f = head.split(":");
            String count = f[f.length - 1];
            if (f.length < 2 || !f[0].equals("gpu") || !count.matches("\\d{1,6}")) {
                throw new IllegalArgumentException("a GRES of '" + value + "' does not read as gpu[:TYPE]:COUNT");
            }
            gpus += Integer.parseInt(count);
            Matcher m = paren >= 0 ? IDX.matcher(p.substring(paren)) : null;
            if (m != null && m.find()) {
                for (String r : m.group(1).split(",")) {
                    String[] ab = r.split("-");
                    int a = Integer.parseInt(ab[0]);
                    int b = ab.length > 1 ? Integer.parseInt(ab[1]) : a;
                    for (int i = a; i <= b; i++) {
                        idx.add(i);
                    }
                }
            }
        }
        return new NodeGres(gpus, new ArrayList<>(idx));
    }

    /**
     * How this allocation's GPU counts differ from Allot's placement, in words naming what was expected and what
     * Slurm gave (indexes included where Slurm shows them); empty when every node has its count and no other node
     * has any.
     */
    Optional<String> mismatch(List<Launch.NodeGpus> placement) {
        return differs(placement, false);
    }

    /**
     * With the same counts, how Slurm's GPU indexes differ from the placement's, in the same words; empty when
     * they are the same or Slurm shows none.
     */
    Optional<String> indexDifference(List<Launch.NodeGpus> placement) {
        return mismatch(placement).isPresent() ? Optional.empty() : differs(placement, true);
    }

    private Optional<String> differs(List<Launch.NodeGpus> placement, boolean byIndex) {
        Map<String, NodeGres> expected = new TreeMap<>();
        for (Launch.NodeGpus ng : placement) {
            expected.put(ng.node(), new NodeGres(ng.gpus().size(), ng.gpus()));
        }
        boolean same = true;
        for (Map.Entry<String, NodeGres> e : expected.entrySet()) {
            NodeGres got = nodes.get(e.getKey());
            if (got == null || got.gpus() != e.getValue().gpus() || (byIndex && !got.indexes().isEmpty()
                    && !got.indexes().equals(e.getValue().indexes()))) {
                same = false;
            }
        }
        for (Map.Entry<String, NodeGres> e : nodes.entrySet()) {
            if (!expected.containsKey(e.getKey()) && e.getValue().gpus() > 0) {
                same = false;
            }
        }
        if (same) {
            return Optional.empty();
        }
        boolean withIndexes = nodes.values().stream().anyMatch(g -> !g.indexes().isEmpty());
        return Optional.of("Slurm allocated " + describe(nodes, true) + " where Allot placed "
                + describe(expected, withIndexes));
    }

    private static String describe(Map<String, NodeGres> m, boolean withIndexes) {
        List<String> parts = new ArrayList<>();
        m.forEach((node, g) -> parts.add(node + ": " + (withIndexes ? g : new NodeGres(g.gpus(), List.of()))));
        return String.join(", ", parts);
    }

    /** {@code [0, 1, 2, 5]} as {@code (IDX 0-2,5)}. */
    static String ranges(List<Integer> idx) {
        StringBuilder b = new StringBuilder("(IDX ");
        int i = 0;
        while (i < idx.size()) {
            int j = i;
            while (j + 1 < idx.size() && idx.get(j + 1) == idx.get(j) + 1) {
                j++;
            }
            b.append(i > 0 ? "," : "").append(idx.get(i)).append(j > i ? "-" + idx.get(j) : "");
            i = j + 1;
        }
        return b.append(')').toString();
    }
}
