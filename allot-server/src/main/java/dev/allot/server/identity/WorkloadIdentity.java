package dev.allot.server.identity;

import dev.allot.server.api.IdentityGate;
import dev.allot.server.store.User;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * The API's side of the {@link IdentityMode}: a user may submit only if the account its workloads would run as
 * exists ({@code getent passwd}) and is not root (unless root workloads are allowed); the users may change only
 * within what the mode allows. Checked at submission, so a user learns at once, in words, what the backend would
 * otherwise refuse when the workload is started (the backend checks again: defence in depth).
 */
public final class WorkloadIdentity implements IdentityGate {
    private final IdentityMode mode;
    private final UnixAccounts accounts;

    public WorkloadIdentity(IdentityMode mode, UnixAccounts accounts) {
        this.mode = Objects.requireNonNull(mode, "mode");
        this.accounts = Objects.requireNonNull(accounts, "accounts");
    }

    public IdentityMode mode() {
        return mode;
    }

    @Override
    public Refusal submitter(String user) {
        if (!mode.switchesAccounts()) {
            return null;
        }
        String account = mode.accounts().accountOf(user);
        Optional<UnixAccounts.Account> found;
        try {
            found = accounts.lookup(account);
        } catch (IllegalStateException e) {
            return new Refusal(503, "cannot tell which Unix account user '" + user + "' runs as: " + e.getMessage(),
                    "try again; an administrator should check the machine's NSS (getent passwd " + account + ")");
        }
        if (found.isEmpty()) {
            return new Refusal(400, "user '" + user + "' has no Unix account on this machine: its workloads run as"
                    + " the account '" + account + "', which getent passwd does not know",
                    "an administrator creates the account '" + account + "', or maps the user to an existing"
                            + " account with a line '" + user + ": ACCOUNT' in the file given to allot serve"
                            + " --accounts");
        }
        if (found.get().root() && !mode.allowRootWorkloads()) {
            return new Refusal(400, "user '" + user + "' runs as the Unix account '" + account + "', which is root"
                    + " (uid 0); the service never starts a workload as root",
                    "an administrator maps the user to an unprivileged account with --accounts (or, knowing it gives"
                            + " that user the whole machine, starts the service with --allow-root-workloads)");
        }
        return null;
    }

    @Override
    public Refusal users(List<User> after) {
        return mode.tooManyUsers(after)
                .map(why -> new Refusal(409, why, "keep one non-admin user, run the service as root, or restart it"
                        + " with --single-user-host"))
                .orElse(null);
    }
}
