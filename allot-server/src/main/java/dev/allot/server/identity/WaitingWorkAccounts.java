package dev.allot.server.identity;

import dev.allot.server.api.IdentityGate;
import dev.allot.server.store.Store;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import dev.allot.server.store.WorkloadState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * Whether the work waiting in a store can still be started as its submitters' Unix accounts under this start's
 * {@link IdentityMode}. Submission checks a user's account ({@link WorkloadIdentity#submitter}); a restart can change
 * the mapping under work already accepted: a store made by {@code allot serve --demo} as root (everyone runs as
 * {@value IdentityMode#DEMO_ACCOUNT}) started again without {@code --demo} maps the demo's users to accounts of their
 * own names, which a machine does not have, and the backend then refused every waiting workload at launch and failed
 * it: accepted work lost to a changed option. So the service refuses to start instead, naming the users, their
 * waiting workloads and the options that would run them; nothing is changed in the store.
 *
 * <p>Only a definite "no such account" (or root, when not allowed) counts: an account lookup that cannot answer (NSS
 * down) does not keep the service from starting, and the backend checks again at launch.
 */
public final class WaitingWorkAccounts {
    /** How many workload ids are named per user. */
    static final int IDS_NAMED = 5;

    private WaitingWorkAccounts() {
    }

    /**
     * {@link #problem} for the work waiting in {@code store} (the first {@link WorkloadFilter#MAX_LIMIT}), the store
     * counting as made by {@code --demo} when its demo user or the demo token file exists.
     *
     * @param demoUser      the demo's administrator's name
     * @param demoTokenFile where {@code --demo} keeps its token
     */
    public static Optional<String> problem(IdentityGate gate, Store store, String demoUser, Path demoTokenFile,
                                           boolean demo) {
        List<Workload> waiting = store.workloads().workloads(WorkloadFilter.all()
                .withStates(WorkloadState.PENDING, WorkloadState.REQUEUED));
        if (waiting.isEmpty()) {
            return Optional.empty();
        }
        boolean demoMade = Files.exists(demoTokenFile)
                || store.access().users().stream().anyMatch(u -> u.name().equals(demoUser));
        return problem(gate, waiting, demoMade, demo);
    }

    /**
     * Why the waiting work cannot be started as it would be under {@code gate}, or empty when it can.
     *
     * @param waiting  the store's waiting workloads (pending or requeued)
     * @param demoMade whether the store was made by {@code --demo} (its demo user or token exists), for the hint
     * @param demo     whether this start has {@code --demo}
     */
    public static Optional<String> problem(IdentityGate gate, List<Workload> waiting, boolean demoMade, boolean demo) {
        Map<String, List<String>> byUser = new TreeMap<>();
        for (Workload w : waiting) {
            byUser.computeIfAbsent(w.user(), u -> new ArrayList<>()).add(w.id());
        }
        List<String> why = new ArrayList<>();
        int workloads = 0;
        for (Map.Entry<String, List<String>> e : byUser.entrySet()) {
            IdentityGate.Refusal r = gate.submitter(e.getKey());
            if (r == null || r.status() >= 500) {
                continue;
            }
            List<String> ids = e.getValue();
            workloads += ids.size();
            why.add(r.problem() + " (" + ids.size() + " waiting: " + String.join(", ", ids.subList(0,
                    Math.min(IDS_NAMED, ids.size()))) + (ids.size() > IDS_NAMED ? ", ..." : "") + ")");
        }
        if (why.isEmpty()) {
            return Optional.empty();
        }
        String hint = demoMade && !demo
                ? "this data directory was made by allot serve --demo, whose users all run as the account '"
                        + IdentityMode.DEMO_ACCOUNT + "': start it again with --demo, or give --accounts FILE"
                : "give --accounts FILE mapping each of them ('USER: ACCOUNT', or '*: ACCOUNT' for everyone else), or"
                        + " create the accounts";
        return Optional.of(workloads + (workloads == 1 ? " waiting workload" : " waiting workloads") + " could not be"
                + " started, so the service does not start (nothing was changed): " + String.join("; ", why)
                + ". Hint: " + hint + "; once it runs, such work can be cancelled (allot cancel ID)");
    }
}
