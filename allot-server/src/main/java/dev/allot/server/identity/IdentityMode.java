package dev.allot.server.identity;

import dev.allot.server.service.ServiceConfig;
import dev.allot.server.store.User;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * As whom the service's workloads run, decided once at start from who the service is and how it was configured.
 * The one place this rule lives (the service, {@code allot serve} and the API only read the decision):
 *
 * <ul>
 *   <li><b>{@link Kind#NONE}</b>: the simulated backend runs nothing; no account matters.
 *   <li><b>{@link Kind#SWITCH}</b>: the service is root and its backend runs real work (local, Slurm): every workload
 *       runs as its submitter's Unix account through the {@link AccountMap}: {@code --accounts FILE}, else the
 *       account of the same name, except {@code --demo} without {@code --accounts}, which maps everyone to
 *       {@value #DEMO_ACCOUNT} (the demo's users maria, ana, ben have no accounts on a fresh machine). A user whose
 *       account does not exist cannot submit; a workload whose account is root is refused unless
 *       {@code --allow-root-workloads}.
 *   <li><b>{@link Kind#SERVICE_USER}</b>: the service is not root, so it cannot switch users and every workload runs
 *       as the service's own user, able to read and signal everything the service can (its data directory, its
 *       token file, its store, the other workloads). On the local backend that is only acceptable on a host of one
 *       person: the service refuses more than one non-admin user unless {@code --single-user-host} acknowledges it
 *       ({@code --demo} implies it, and says so). {@code --accounts} is refused: there is no one to switch to.
 * </ul>
 *
 * @param kind                which of the three
 * @param accounts            the map of users to accounts when {@link Kind#SWITCH}, else null
 * @param allowRootWorkloads  a workload whose account is root (uid 0) may run
 * @param limitNonAdminUsers  at most one non-admin user may exist (local backend, not root, not acknowledged)
 * @param serviceUid          the uid the service runs as
 * @param serviceUser         its name, for messages
 * @param notices             what {@code allot serve} prints at start and the service logs, one line each
 */
public record IdentityMode(Kind kind, AccountMap accounts, boolean allowRootWorkloads, boolean limitNonAdminUsers,
                           long serviceUid, String serviceUser, List<String> notices) {
    /** The account every user of the demo runs as when the service is root and no map was given. */
    public static final String DEMO_ACCOUNT = "nobody";

    public enum Kind { NONE, SWITCH, SERVICE_USER }

    public IdentityMode {
        Objects.requireNonNull(kind, "kind");
        notices = List.copyOf(notices);
        if ((kind == Kind.SWITCH) != (accounts != null)) {
            throw new IllegalArgumentException("an account map goes with SWITCH, and only with it");
        }
    }

    /**
     * Decides the mode for a service of this configuration running as {@code uid}.
     *
     * @throws IllegalArgumentException naming the file and line of a bad accounts file, or an option that cannot
     *                                  apply (--accounts when not root)
     */
    public static IdentityMode decide(ServiceConfig config, long uid, String userName) {
        ServiceConfig.Security security = config.security();
        boolean realWork = !config.backend().equals(ServiceConfig.SIMULATED);
        List<String> notices = new ArrayList<>();
        if (!realWork) {
            return new IdentityMode(Kind.NONE, null, security.allowRootWorkloads(), false, uid, userName, notices);
        }
        if (uid == 0) {
            AccountMap map;
            if (security.accountsFile() != null) {
                map = read(security);
                notices.add("Workloads run as their submitter's Unix account, mapped by " + security.accountsFile()
                        + (map.fallback() != null ? " (everyone not named there as '" + map.fallback() + "')"
                        : " (everyone not named there as the account of the same name)") + ".");
            } else if (config.demo()) {
                map = AccountMap.everyoneAs(DEMO_ACCOUNT);
                notices.add("Demo as root without --accounts: every user's workloads run as the Unix account '"
                        + DEMO_ACCOUNT + "', so one user's workloads can read another's processes and environment"
                        + " (give --accounts FILE to run each as its own account).");
            } else {
                map = AccountMap.sameName();
                notices.add("Workloads run as the Unix account of their submitter's name (--accounts FILE maps"
                        + " other names); a user without an account cannot submit.");
            }
            if (security.allowRootWorkloads()) {
                notices.add("WARNING: --allow-root-workloads: a user mapped to root runs workloads as root, with full"
                        + " control of this machine and the service.");
            }
            return new IdentityMode(Kind.SWITCH, map, security.allowRootWorkloads(), false, uid, userName, notices);
        }
        if (security.accountsFile() != null) {
            throw new IllegalArgumentException("--accounts " + security.accountsFile() + " needs the service to run as"
                    + " root (to start workloads as other accounts); it runs as " + userName + " (uid " + uid + ")");
        }
        boolean local = config.backend().equals(ServiceConfig.LOCAL);
        boolean acknowledged = security.singleUserHost() || config.demo();
        notices.add("NOTE: the service runs as " + userName + " (uid " + uid + "), not root: every workload runs as "
                + userName + " and can read the data directory (admin token, store), the service's processes and"
                + " every other workload. Run it as root to run each workload as its submitter's account.");
        if (local && config.demo() && !security.singleUserHost()) {
            notices.add("--demo implies --single-user-host: its users share that one Unix user.");
        } else if (local && acknowledged) {
            notices.add("--single-user-host: several users may exist; they all share that one Unix user.");
        } else if (local) {
            notices.add("Without --single-user-host, at most one non-admin user may exist on this local backend.");
        }
        return new IdentityMode(Kind.SERVICE_USER, null, security.allowRootWorkloads(), local && !acknowledged, uid,
                userName, notices);
    }

    /** The mode for this process ({@link UnixAccounts#serviceUid()}). */
    public static IdentityMode decide(ServiceConfig config) {
        return decide(config, UnixAccounts.serviceUid(), UnixAccounts.serviceUserName());
    }

    private static AccountMap read(ServiceConfig.Security security) {
        try {
            return AccountMap.read(security.accountsFile());
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("--accounts " + security.accountsFile() + ": no such file", e);
        } catch (IOException e) {
            // a folder, a binary file: the words every input file gets (it said 'cannot be read: Input length = 1')
            java.nio.file.Path file = security.accountsFile();
            throw new IllegalArgumentException("--accounts " + dev.allot.sim.input.TextFiles.readError(file,
                    file.toString(), e).getMessage(), e);
        }
    }

    /** Whether the service starts workloads as accounts of the map (it is root and runs real work). */
    public boolean switchesAccounts() {
        return kind == Kind.SWITCH;
    }

    /**
     * Why {@code users} (all users, as they are or would be after a change) are too many for this mode, naming them
     * and the option; empty when they are fine.
     */
    public Optional<String> tooManyUsers(List<User> users) {
        if (!limitNonAdminUsers) {
            return Optional.empty();
        }
        List<String> members = users.stream().filter(u -> u.role() != User.Role.ADMIN && !u.disabled()).map(User::name).sorted()
                .toList();
        if (members.size() <= 1) {
            return Optional.empty();
        }
        return Optional.of("the service runs as " + serviceUser + " (uid " + serviceUid + "), not root, so every"
                + " workload runs as that one Unix user and could read the others' work and the service's secrets;"
                + " on the local backend it allows at most one non-admin user, and there would be " + members.size()
                + ": " + String.join(", ", members) + ". Start it as root (each workload then runs as its submitter's"
                + " account), or with --single-user-host to accept that they share one user");
    }
}
