package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.sim.report.WorkloadsCsv;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;

/**
 * One replay of a {@link ReplayPlan} on a running service: submits each workload at its time, passes on each
 * resumable workload's checkpoints as progress reports ({@code POST /v1/workloads/ID/progress}: the program writes
 * its state file, this relays it, so the program needs no token and no HTTP client), waits until every workload has
 * ended, and reads back what happened as {@link WorkloadsCsv} rows in scenario seconds.
 *
 * <p>Time 0 is a whole second of the wall clock, at least a second ahead: the service's scheduler counts whole
 * seconds of the same clock (the client's and the service's clocks are taken to agree, as on one machine or under
 * NTP), so a workload submitted at scenario second {@code s} is one the service sees at its second {@code s}.
 */
final class ReplayRun {
    /** Active states of a live workload: it has not ended yet. */
    static final String ACTIVE_STATES = "pending,running,requeued";
    private static final long RELAY_EVERY_MILLIS = 100;
    private static final long POLL_EVERY_MILLIS = 500;
    /** The most workloads one batch submission holds (the service's limit). */
    static final int MAX_BATCH = 1_000;

    /**
     * What a replay measured.
     *
     * @param rows          one row per workload, in submission order
     * @param runTwice      attempts whose program started more than once, e.g. {@code t3 attempt 1 (2 starts)}
     * @param timedOut      whether some workload had not ended by the timeout
     * @param lateSubmissionsSeconds  how late, in real seconds, the latest submission reached the service
     */
    record Outcome(List<WorkloadsCsv.Row> rows, List<String> runTwice, boolean timedOut,
                   double lateSubmissionsSeconds) {
    }

    private final ApiClient client;
    private final ReplayPlan plan;
    private final Path stateDir;
    private final PrintWriter log;
    private final LongSupplier clock = System::currentTimeMillis;
    /** Each workload's work in scenario seconds: the total of its progress reports. */
    private final Map<String, Long> totalSeconds = new HashMap<>();
    /** The service's ids of the workloads submitted so far, in order; read by the Ctrl-C note's thread too. */
    private final List<String> submitted = java.util.Collections.synchronizedList(new ArrayList<>());
    private volatile boolean finished;

    ReplayRun(ApiClient client, ReplayPlan plan, Path stateDir, PrintWriter log) {
        this.client = client;
        this.plan = plan;
        this.stateDir = stateDir;
        this.log = log;
        plan.scenario().workloads().forEach(w -> totalSeconds.put(w.id(), Math.max(1, w.duration().getSeconds())));
    }

    /**
     * Replays the plan and collects its rows. Interrupted (Ctrl-C: the JVM runs its shutdown hooks), it says on
     * standard error what it had submitted, which stays on the service: it exited 130 without a word, and the
     * workloads it had submitted ran on.
     */
    Outcome run(Duration timeout) throws IOException, InterruptedException {
        Thread hook = new Thread(() -> {
            String note = interruptedNote();
            if (note != null) {
                System.err.println(note);
                System.err.flush();
            }
        }, "allot-replay-interrupted");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return replay(timeout);
        } finally {
            finished = true;
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException e) {
                // the JVM is shutting down: the hook runs, and says nothing now that the replay has finished
            }
        }
    }

    /** Records a workload the service took ({@link #interruptedNote}). */
    void submitted(String liveId) {
        submitted.add(liveId);
    }

    /**
     * What an interrupted replay leaves behind, in words, or null when it had submitted nothing or had finished: the
     * workloads it submitted stay on the service and run as it schedules them.
     */
    String interruptedNote() {
        List<String> ids;
        synchronized (submitted) {
            ids = List.copyOf(submitted);
        }
        if (finished || ids.isEmpty()) {
            return null;
        }
        String which = ids.size() <= 3 ? String.join(", ", ids) : ids.get(0) + " to " + ids.get(ids.size() - 1);
        return "allot: replay interrupted after submitting " + ids.size() + " of " + plan.submissions().size()
                + " workloads (" + which + "); they stay on the service and run as it schedules them: 'allot queue'"
                + " lists them, 'allot cancel ID' cancels one";
    }

    private Outcome replay(Duration timeout) throws IOException, InterruptedException {
        requireAllocations();
        requireShapesFit();
        String policy = client.get("/v1/policy").path("policy").asText("live");
        long zero = (clock.getAsLong() / 1000 + 2) * 1000;
        log.println("replaying " + plan.describe() + " on " + policy + ", time 0 at " + Instant.ofEpochMilli(zero)
                + "; the programs' state in " + stateDir);
        log.flush();
        Map<String, String> liveIds = new LinkedHashMap<>();
        Map<String, Long> relayed = new HashMap<>();
        Set<String> active = new HashSet<>();
        int next = 0;
        long nextRelay = 0;
        long nextPoll = 0;
        long deadline = zero + timeout.toMillis();
        boolean timedOut = false;
        List<ReplayPlan.Submission> subs = plan.submissions();
        while (next < subs.size() || !active.isEmpty() || liveIds.size() < subs.size()) {
            long now = clock.getAsLong();
            List<ReplayPlan.Submission> due = new ArrayList<>();
            while (next < subs.size() && now >= zero + subs.get(next).submitAfterMillis()) {
                due.add(subs.get(next++));
            }
            if (!due.isEmpty()) {
                submit(due, liveIds, active);
                now = clock.getAsLong();
            }
            long dueNext = next < subs.size() ? zero + subs.get(next).submitAfterMillis() : Long.MAX_VALUE;
            boolean quiet = dueNext - now > 150; // never delay a submission by a relay or a poll
            if (quiet && now >= nextRelay) {
                relay(subs, liveIds, active, relayed);
                nextRelay = now + RELAY_EVERY_MILLIS;
            }
            if (quiet && next == subs.size() && now >= nextPoll) {
                active.retainAll(stillActive(liveIds));
                nextPoll = now + POLL_EVERY_MILLIS;
                if (active.isEmpty()) {
                    break;
                }
            }
            if (now > deadline) {
                timedOut = true;
                break;
            }
            Thread.sleep(Math.max(1, Math.min(Math.min(dueNext, nextRelay) - clock.getAsLong(), 50)));
        }
        return collect(policy, zero, liveIds, timedOut);
    }

    /**
     * Submits the workloads due now together: one {@code POST /v1/workloads} for one, one
     * {@code POST /v1/workloads/batch} (at most {@link #MAX_BATCH} a request) for several. The service stores a batch
     * in one transaction, so its scheduler sees all of it in one cycle, as the simulator sees the submissions of one
     * second together. Sent one by one, a cycle between two submissions of one second decided on the first alone
     * (measured: {@code examples/replay}'s w08 and w09, both due at second 7, reached the service 19 ms apart; w08 was
     * started alone, then w09 preempted unallocated w01 to start, where the simulator started w09 and kept w08 waiting).
     */
    private void submit(List<ReplayPlan.Submission> due, Map<String, String> liveIds, Set<String> active) {
        for (int from = 0; from < due.size(); from += MAX_BATCH) {
            List<ReplayPlan.Submission> part = due.subList(from, Math.min(due.size(), from + MAX_BATCH));
            List<String> ids = new ArrayList<>(part.size());
            if (part.size() == 1) {
                ids.add(client.post("/v1/workloads", part.get(0).body(stateDir)).path("id").asText());
            } else {
                ObjectNode body = ApiClient.JSON.createObjectNode();
                ArrayNode items = body.putArray("workloads");
                part.forEach(s -> items.add(s.body(stateDir)));
                for (JsonNode w : client.post("/v1/workloads/batch", body).path("workloads")) {
                    ids.add(w.path("id").asText());
                }
            }
            if (ids.size() != part.size()) {
                throw new IllegalStateException("the service answered " + ids.size() + " workloads for a batch of "
                        + part.size());
            }
            for (int i = 0; i < part.size(); i++) {
                liveIds.put(part.get(i).id(), ids.get(i));
                active.add(part.get(i).id());
                submitted(ids.get(i));
            }
        }
    }

    /**
     * Refuses the replay before anything is submitted when a workload's shape fits none of the service's nodes
     * ({@link dev.allot.core.rules.ShapeFit}, the rule the service's submission checks): the service refused it
     * mid-replay, after the workloads due before it had been submitted and left running. A service with no nodes at
     * all is refused too: a replay's times mean nothing without the scenario's cluster.
     */
    private void requireShapesFit() {
        List<dev.allot.core.model.NodeSpec> nodes = new ArrayList<>();
        for (JsonNode n : client.get("/v1/nodes").path("nodes")) {
            if (n.path("gpus").asInt() >= 1) {
                nodes.add(new dev.allot.core.model.NodeSpec(n.path("name").asText(), n.path("gpus").asInt(), "gpu",
                        new java.util.TreeMap<>()));
            }
        }
        if (nodes.isEmpty()) {
            // the service takes work before its nodes come, but a replay times its workloads against the scenario's
            // cluster: played on none, it waited out its whole --timeout (7 minutes for examples/replay) for nothing
            throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, "the service has no nodes with GPUs, so"
                    + " none of the scenario's " + plan.submissions().size() + " workloads could start; nothing was"
                    + " submitted (hint: give the service the nodes of the scenario's cluster.yaml first: on the"
                    + " simulated backend PUT /v1/nodes/NAME {\"gpus\": N} for each; 'allot nodes' lists the service's)");
        }
        dev.allot.core.model.ClusterSpec cluster = new dev.allot.core.model.ClusterSpec(nodes, List.of());
        for (ReplayPlan.Submission s : plan.submissions()) {
            var misfit = dev.allot.core.rules.ShapeFit.check(cluster, s.gpus(), s.gpusPerNode());
            if (misfit.isPresent()) {
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, "workload " + s.id() + ": "
                        + misfit.get() + "; the service's nodes cannot hold it, so nothing was submitted (hint: GET"
                        + " /v1/nodes lists them; replay against a service whose nodes are those of the scenario's"
                        + " cluster.yaml)");
            }
        }
    }

    /**
     * Refuses the replay before anything is submitted when the service lacks an allocation the scenario's workloads
     * name: the first submission to it failed mid-replay, after the workloads due before it had been submitted and
     * left running.
     */
    private void requireAllocations() {
        Set<String> known = new HashSet<>();
        for (JsonNode a : client.get("/v1/allocations").path("allocations")) {
            known.add(a.path("path").asText());
        }
        Map<String, String> missing = new TreeMap<>();
        for (ReplayPlan.Submission s : plan.submissions()) {
            if (!known.contains(s.allocationPath())) {
                missing.putIfAbsent(s.allocationPath(), s.id());
            }
        }
        if (!missing.isEmpty()) {
            String first = missing.keySet().iterator().next();
            throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, "the service has no allocation "
                    + String.join(", ", missing.keySet().stream().map(p -> "'" + p + "'").toList())
                    + " that the scenario's workloads name (" + missing.get(first) + " is in " + first
                    + "); nothing was submitted (hint: create each first, e.g. allot budget set "
                    + ShellWords.quote(first) + " --share 1; 'allot budget show' lists the service's allocations)");
        }
    }

    /** Passes each running resumable workload's newest checkpoint on as a progress report, once. */
    private void relay(List<ReplayPlan.Submission> subs, Map<String, String> liveIds, Set<String> active,
                       Map<String, Long> relayed) {
        for (ReplayPlan.Submission s : subs) {
            if (s.checkpointMillis() == 0 || !active.contains(s.id())) {
                continue;
            }
            long doneMillis = readLong(s.stateFile(stateDir));
            if (doneMillis <= relayed.getOrDefault(s.id(), 0L)) {
                continue;
            }
            relayed.put(s.id(), doneMillis);
            long total = totalSeconds.get(s.id());
            ObjectNode body = ApiClient.JSON.createObjectNode();
            body.put("done", Math.min(total, (long) plan.scenarioSeconds(doneMillis)));
            body.put("total", total);
            try {
                client.post("/v1/workloads/" + ApiClient.segment("a workload id", liveIds.get(s.id())) + "/progress", body);
            } catch (ApiClient.ClientException e) {
                // ended or preempted between the checkpoint and the report: the next attempt reports again
            }
        }
    }

    private Set<String> stillActive(Map<String, String> liveIds) {
        Set<String> live = new HashSet<>();
        for (JsonNode w : client.get("/v1/workloads", Map.of("state", ACTIVE_STATES, "limit", "100000"))
                .path("workloads")) {
            live.add(w.path("id").asText());
        }
        Set<String> out = new HashSet<>();
        liveIds.forEach((id, liveId) -> {
            if (live.contains(liveId)) {
                out.add(id);
            }
        });
        return out;
    }

    private Outcome collect(String policy, long zero, Map<String, String> liveIds, boolean timedOut)
            throws IOException {
        List<WorkloadsCsv.Row> rows = new ArrayList<>();
        List<String> runTwice = new ArrayList<>();
        double late = 0;
        for (ReplayPlan.Submission s : plan.submissions()) {
            String liveId = liveIds.get(s.id());
            if (liveId == null) {
                continue;
            }
            JsonNode d = client.get("/v1/workloads/" + ApiClient.segment("a workload id", liveId));
            JsonNode w = d.path("workload");
            long submitted = millis(w.path("submittedAt"));
            late = Math.max(late, (submitted - zero - s.submitAfterMillis()) / 1000.0);
            long firstStart = -1;
            long end = -1;
            int preemptions = 0;
            for (JsonNode a : d.path("attempts")) {
                long started = millis(a.path("startedAt"));
                if (started >= 0 && firstStart < 0) {
                    firstStart = started;
                }
                end = Math.max(end, millis(a.path("endedAt")));
                String outcome = a.path("outcome").asText("");
                if (outcome.equals("preempted") || outcome.equals("requeued")) {
                    preemptions++;
                }
            }
            String state = w.path("state").asText();
            boolean ended = !ACTIVE_STATES.contains(state);
            double submit = plan.scenarioSeconds(submitted - zero);
            // An older service stamped a start with its cycle's clock, read before the cycle took in the
            // submissions that arrived meanwhile: a start stamped before its submission counts at the submission.
            double start = firstStart < 0 ? -1 : plan.scenarioSeconds(Math.max(firstStart, submitted) - zero);
            rows.add(new WorkloadsCsv.Row(policy, s.id(), s.allocation(), submit, start,
                    ended && end >= 0 ? plan.scenarioSeconds(end - zero) : -1,
                    start < 0 ? -1 : Math.round((start - submit) * 1000) / 1000.0, preemptions,
                    state.equals("requeued") ? "pending" : state));
            runTwice.addAll(startedTwice(s));
        }
        return new Outcome(rows, runTwice, timedOut, late);
    }

    /** The attempts the runs file of a workload names more than once. */
    private List<String> startedTwice(ReplayPlan.Submission s) throws IOException {
        Path runs = s.runsFile(stateDir);
        if (!Files.exists(runs)) {
            return List.of();
        }
        Map<String, Integer> starts = new TreeMap<>();
        for (String line : Files.readAllLines(runs, StandardCharsets.UTF_8)) {
            if (!line.isBlank()) {
                starts.merge(line.trim(), 1, Integer::sum);
            }
        }
        List<String> out = new ArrayList<>();
        starts.forEach((attempt, n) -> {
            if (n > 1) {
                out.add(s.id() + " attempt " + attempt + " (" + n + " starts)");
            }
        });
        return out;
    }

    private static long millis(JsonNode instant) {
        return instant == null || instant.isNull() || instant.isMissingNode() ? -1
                : Instant.parse(instant.asText()).toEpochMilli();
    }

    private static long readLong(Path file) {
        try {
            String s = Files.readString(file, StandardCharsets.UTF_8).trim();
            return s.isEmpty() ? 0 : Long.parseLong(s);
        } catch (IOException | NumberFormatException e) {
            return 0; // not written yet (the program renames a complete file into place)
        }
    }
}
