package dev.allot.server.api;

import dev.allot.core.backend.AttemptOutput;
import dev.allot.core.backend.BackendException;
import dev.allot.server.store.Allocation;
import dev.allot.server.store.Attempt;
import dev.allot.server.store.Attempts;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import io.javalin.http.Context;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * {@code GET /v1/workloads/{id}/output}: the end of what a workload's attempt wrote (stdout and stderr), its last
 * attempt unless {@code attempt} names another, the last {@code tailBytes} (64 KiB unless asked; at most 1 MiB).
 * Output may hold what the workload's command and environment hold (tokens, paths), so only those who may see those
 * read it: its owner, managers of its allocation or above, administrators (403 for anyone else, as the workload's
 * details are redacted for them). Where the backend keeps no output the service can read (Slurm writes it on the
 * cluster), 404 says where it goes.
 */
final class OutputApi {
    static final int DEFAULT_TAIL_BYTES = 64 * 1024;
    static final int MAX_TAIL_BYTES = 1024 * 1024;
    private static final Set<String> PARAMS = Set.of("attempt", "tailBytes");

    /** The answer: {@code text} is the output from byte {@code fromByte} on, of {@code sizeBytes} so far. */
    record OutputView(String workload, int attempt, String phase, long sizeBytes, long fromByte, boolean truncated,
                      String text) {
    }

    private final Store store;
    private final JsonIo io;
    private final Cached<List<Allocation>> allocations;
    private final AttemptOutputs outputs;

    OutputApi(Store store, JsonIo io, Cached<List<Allocation>> allocations, AttemptOutputs outputs) {
        this.store = Objects.requireNonNull(store, "store");
        this.io = Objects.requireNonNull(io, "io");
        this.allocations = Objects.requireNonNull(allocations, "allocations");
        this.outputs = Objects.requireNonNull(outputs, "outputs");
    }

    void output(Context ctx, User user) {
        QueryParams.only(ctx, PARAMS, "the parameters are attempt (a number, the last one unless given) and tailBytes"
                + " (1 to " + MAX_TAIL_BYTES + ", default " + DEFAULT_TAIL_BYTES + ")");
        String id = ctx.pathParam("id");
        Attempts.WorkloadHistory read = store.attempts().workloadWithAttempts(id)
                .orElseThrow(() -> ApiException.notFound("no workload '" + id + "'", "workload ids look like w-42;"
                        + " GET /v1/workloads lists them"));
        if (!Permissions.of(allocations.get()).maySeeDetails(user, read.workload())) {
            throw ApiException.forbidden("user '" + user.name() + "' may not read the output of workload " + id,
                    "output may hold what its command and environment hold: its owner, a manager of allocation '"
                            + read.workload().allocationPath() + "' or above, or an administrator may read it");
        }
        Map<String, List<String>> params = ctx.queryParamMap();
        List<Attempt> attempts = read.attempts();
        if (attempts.isEmpty()) {
            throw ApiException.notFound("workload " + id + " has not started yet (it is "
                    + read.workload().state().label() + "): there is no output", "allot explain " + id
                    + " says why it waits");
        }
        int last = attempts.get(attempts.size() - 1).key().attempt();
        int n = (int) QueryParams.number(params, "attempt", 1, Integer.MAX_VALUE, last);
        Attempt attempt = attempts.stream().filter(a -> a.key().attempt() == n).findFirst()
                .orElseThrow(() -> ApiException.badField("attempt", "workload " + id + " has no attempt " + n,
                        "its attempts are 1 to " + last));
        int tail = (int) QueryParams.number(params, "tailBytes", 1, MAX_TAIL_BYTES, DEFAULT_TAIL_BYTES);
        AttemptOutput out;
        try {
            out = outputs.output(attempt.key(), tail).orElseThrow(() -> ApiException.notFound("the output of "
                    + id + " attempt " + n + " is not kept by this service", outputs.elsewhere()));
        } catch (BackendException e) {
            throw ApiException.notFound("the output of " + id + " attempt " + n + " could not be read: "
                    + e.getMessage(), "it may have been removed; the attempt's record is kept (GET /v1/workloads/"
                    + id + ")");
        }
        io.json(ctx, 200, new OutputView(id, n, attempt.phase().label(), out.sizeBytes(), out.fromByte(),
                out.truncated(), out.text()));
    }
}
