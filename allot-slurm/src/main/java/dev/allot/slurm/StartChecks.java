package dev.allot.slurm;

import dev.allot.core.backend.BackendException;
import dev.allot.core.backend.BackendUnavailableException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * What the Slurm backend checks before it takes its instance lock: mistakes of configuration that no amount of
 * waiting mends are refused at once with what to fix, where before the service retried for 30 s and then blamed an
 * unreachable Slurm (an empty {@code slurm.conf}), or started and failed every workload for good (a partition Slurm
 * does not have). Only Slurm's own certain answer refuses: a command that failed, timed out or was cut short says
 * nothing (a failed probe is unknown, never "none"), and taking the lock then says whether Slurm can be reached.
 */
final class StartChecks {
    /** What Slurm's commands print, last, when they cannot read slurm.conf (22.05: "fatal: Unable to process ..."). */
    static final String UNREADABLE = "Unable to process configuration file";

    private StartChecks() {
    }

    /**
     * Refuses a {@code slurm.conf} Slurm's commands cannot read. {@code scontrol show hostnames} parses the
     * configuration without asking slurmctld, so this takes milliseconds and holds whether or not the controller is
     * up.
     *
     * @throws BackendException quoting Slurm's error lines and the file
     */
    static void configReadable(Commands commands, SlurmConfig config) {
        Commands.Result r;
        try {
            r = commands.run("scontrol", List.of("show", "hostnames", "allot-check"));
        } catch (BackendUnavailableException e) {
            return;
        }
        if (r.ok() || !r.err().contains(UNREADABLE)) {
            return;
        }
        List<String> said = new ArrayList<>();
        for (String line : r.err().split("\n")) {
            String l = line.strip().replaceFirst("^scontrol: ", "");
            if (!l.isEmpty() && !l.contains(UNREADABLE) && said.size() < 3) {
                said.add(l);
            }
        }
        throw new BackendException("Slurm cannot read its configuration " + config.slurmConf() + ": "
                + (said.isEmpty() ? UNREADABLE : String.join("; ", said))
                + "; give the cluster's slurm.conf (--slurm-conf or SLURM_CONF)");
    }

    /**
     * Refuses partitions the cluster does not have: every submission would fail for good ("Invalid partition name
     * specified") and the workloads with it. Only {@code scontrol -o show partition NAME} exiting non-zero with
     * "Partition NAME not found" refuses.
     *
     * @throws BackendException naming the partition, what it is for and, as far as Slurm lists them, the ones it has
     */
    static void partitionsExist(Commands commands, SlurmConfig config) {
        Map<String, String> wanted = new LinkedHashMap<>();
        if (config.partition() != null) {
            wanted.put(config.partition(), "allocated work (--slurm-partition)");
        }
        if (config.freePartition() != null) {
            wanted.putIfAbsent(config.freePartition(), "unallocated work (--slurm-free-partition)");
        }
        for (Map.Entry<String, String> w : wanted.entrySet()) {
            Commands.Result r;
            try {
                r = commands.run("scontrol", List.of("-o", "show", "partition", w.getKey()));
            } catch (BackendUnavailableException e) {
                return;
            }
            String said = r.out() + "\n" + r.err();
            if (r.ok() || !said.contains("Partition " + w.getKey() + " not found")) {
                continue;
            }
            throw new BackendException("the partition for " + w.getValue() + " '" + w.getKey() + "' is not one"
                    + " of this Slurm cluster's" + partitionsListed(commands) + " (scontrol show partition);"
                    + " every workload would fail");
        }
    }

    /** ": a, b" as far as {@code scontrol -o show partition} lists them now; empty when it cannot say. */
    private static String partitionsListed(Commands commands) {
        try {
            Commands.Result r = commands.run("scontrol", List.of("-o", "show", "partition"));
            SortedSet<String> have = new TreeSet<>();
            for (String line : r.ok() ? r.out().split("\n") : new String[0]) {
                if (line.startsWith("PartitionName=") && line.indexOf(' ') > 0) { // a whole line, not a cut one
                    have.add(line.substring("PartitionName=".length(), line.indexOf(' ')));
                }
            }
            return have.isEmpty() ? "" : ": " + String.join(", ", have);
        } catch (BackendUnavailableException e) {
            return "";
        }
    }

    /** Where to look when Slurm could not be reached at start: which settings say where it is, and how to try them. */
    static String unreachableHint(SlurmConfig config) {
        String conf = config.slurmConf() == null ? "slurm.conf" : config.slurmConf().toString();
        return config.observe() == SlurmConfig.Observe.REST
                ? " (check --slurm-rest-url, --slurm-rest-user and --slurm-rest-token-file: curl -H"
                        + " 'X-SLURM-USER-NAME: USER' -H 'X-SLURM-USER-TOKEN: TOKEN' URL" + RestProbe.API
                        + "ping tries them)"
                : " (is slurmctld running where " + conf + " says, SlurmctldHost and SlurmctldPort? `SLURM_CONF=" + conf
                        + " scontrol ping` tries it; --slurm-conf names the file)";
    }
}
