package dev.allot.slurm;

import dev.allot.core.backend.BackendUnavailableException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Observes Slurm through its commands: {@code scontrol -o show job} (every job slurmctld holds, ended ones included,
 * one line each), {@code sinfo --json}, and the listing again to confirm one job, cross-checked with
 * {@code scontrol show job ID} and, where accounting exists, {@code sacct}, for "no such job".
 *
 * <p>Why not {@code squeue --json}, as before: it lists the same jobs (22.05 ignores its filters) but prints about 3.5
 * kB of JSON per job, and a listing is taken every scheduling cycle. With the few hundred ended jobs a cluster keeps
 * for its {@code MinJobAge}, it printed 1.3 MB in 0.3 to 1.9 s on a loaded 2-core machine, where {@code scontrol}
 * printed the same jobs in 0.46 MB in 0.03 to 0.11 s (measured back to back, 386 jobs): a job's end reached Allot that
 * much later, each cycle.
 *
 * <p>These commands print times ({@code EndTime}, sacct's {@code End}) as local times without a zone, in the zone of
 * their own environment: they are run with {@code TZ=UTC} ({@link #UTC}), so that a job's end reads as one instant
 * whatever zone the service runs in, and across a change of daylight saving time.
 */
final class CliProbe implements SlurmProbe {
    /** The environment of the reading commands: their times in UTC. */
    static final Map<String, String> UTC = Map.of("TZ", "UTC");

    private final Commands commands;
    private final boolean accounting;

    CliProbe(Commands commands, boolean accounting) {
        this.commands = commands;
        this.accounting = accounting;
    }

    @Override
    public String name() {
        return "scontrol";
    }

    @Override
    public List<SlurmJob> jobs() {
        Commands.Result r = commands.run("scontrol", List.of("-o", "show", "job"), UTC);
        if (!r.ok()) {
            throw new BackendUnavailableException("could not list Slurm's jobs: " + r.summary());
        }
        try {
            return listing(r.out());
        } catch (SlurmJson.Malformed e) {
            throw new BackendUnavailableException(e.getMessage());
        }
    }

    /** What every line of a listing must name; {@code Power=} comes after the others, so a cut line lacks it. */
    private static final List<String> LISTED = List.of("JobName", "JobState", "Reason", "Restarts", "ExitCode",
            "Partition", "NodeList", "Power");
    private static final Pattern JOB_ID = Pattern.compile("^JobId=(\\d{1,18}) ");

    /**
     * The jobs of a {@code scontrol -o show job} answer, one line each (each component of a heterogeneous job on its
     * own line, as {@code squeue} lists them). Complete or not at all: an empty answer, or a line that is not a whole
     * job, or an answer that does not end with a newline, is {@link SlurmJson.Malformed}; Slurm's
     * {@code No jobs in the system} is none.
     */
    static List<SlurmJob> listing(String out) throws SlurmJson.Malformed {
        String text = out.strip();
        if (text.isEmpty()) {
            throw new SlurmJson.Malformed("scontrol -o show job: empty answer");
        }
        if (text.equals("No jobs in the system")) {
            return List.of();
        }
        List<SlurmJob> jobs = new ArrayList<>();
        int n = 0;
        for (String line : text.split("\n")) {
            n++;
            Matcher m = JOB_ID.matcher(line);
            boolean whole = m.find();
            for (int i = 0; whole && i < LISTED.size(); i++) {
                whole = line.contains(" " + LISTED.get(i) + "=");
            }
            if (!whole) {
                throw new SlurmJson.Malformed("scontrol -o show job: line " + n + " is not a whole job: "
                        + (line.length() > 120 ? line.substring(0, 120) + "..." : line));
            }
            jobs.add(fromScontrol(Long.parseLong(m.group(1)), line));
        }
        if (!out.endsWith("\n")) {
            // scontrol ends every job's line with a newline: an answer cut inside its last line may still name every
            // field Allot reads (a cut after "Power= "), and the jobs after it, the newest, would be taken as absent
            throw new SlurmJson.Malformed("scontrol -o show job: the answer ends inside a line (cut short)");
        }
        return jobs;
    }

    @Override
    public Optional<SlurmJob> job(long id) {
        for (SlurmJob j : jobs()) {
            if (j.id() == id) {
                return Optional.of(j);
            }
        }
        // Not in a complete listing: ask for it by id; only Slurm's own "Invalid job id" counts as absent.
        Commands.Result r = commands.run("scontrol", List.of("-o", "show", "job", Long.toString(id)), UTC);
        if (r.ok() && r.out().contains("JobId=" + id)) {
            return Optional.of(fromScontrol(id, r.out()));
        }
        if (!(r.exit() == 1 && r.err().contains("Invalid job id"))) {
            throw new BackendUnavailableException("could not look up Slurm job " + id + ": " + r.summary());
        }
        if (accounting) {
            Commands.Result a = commands.run("sacct", List.of("-n", "-X", "-P", "-j", Long.toString(id),
                    "-o", "JobID,JobName,State,ExitCode,NodeList,Partition,Comment,End"), UTC);
            if (!a.ok()) {
                throw new BackendUnavailableException("could not look up Slurm job " + id + " in accounting: "
                        + a.summary());
            }
            for (String line : a.out().split("\n")) {
                String[] f = line.split("\\|", -1);
                if (f.length >= 7 && f[0].equals(Long.toString(id))) {
                    String state = f[2].split(" ")[0];
                    return Optional.of(new SlurmJob(id, f[1], f[6], state, "from accounting", waitStatus(f[3]), 0,
                            HostList.expand(f[4].equals("None assigned") ? "" : f[4]), f[5], 0, 0,
                            f.length > 7 ? utcMillis(f[f.length - 1]) : null));
                }
            }
        }
        return Optional.empty();
    }

    /**
     * The fields Allot reads from {@code scontrol -o show job}'s one line of {@code Key=Value} pairs; its
     * {@code EndTime} is read as UTC (see the class comment).
     */
    static SlurmJob fromScontrol(long id, String line) {
        String name = field(line, "JobName");
        String state = field(line, "JobState");
        String reason = field(line, "Reason");
        String comment = field(line, "Comment");
        Integer status = waitStatus(field(line, "ExitCode"));
        String restarts = field(line, "Restarts");
        String nodes = field(line, "NodeList");
        String het = field(line, "HetJobId");
        String hetOffset = field(line, "HetJobOffset");
        return new SlurmJob(id, name, comment.equals("(null)") ? "" : comment, state, reason, status,
                restarts.matches("\\d+") ? Integer.parseInt(restarts) : 0,
                HostList.expand(nodes.equals("(null)") ? "" : nodes), field(line, "Partition"),
                het.matches("\\d+") ? Long.parseLong(het) : 0,
                hetOffset.matches("\\d+") ? Integer.parseInt(hetOffset) : 0, utcMillis(field(line, "EndTime")));
    }

    /**
     * A time as {@code scontrol} and {@code sacct} print it under {@code TZ=UTC} ({@code 2026-12-03T08:29:28}), in
     * epoch milliseconds; null for {@code Unknown}, {@code None}, an empty field or anything else that is not one.
     */
    static Long utcMillis(String time) {
        try {
            return java.time.LocalDateTime.parse(time.strip()).toInstant(java.time.ZoneOffset.UTC).toEpochMilli();
        } catch (java.time.format.DateTimeParseException e) {
            return null;
        }
    }

    /**
     * Slurm's {@code EXIT:SIGNAL} ({@code scontrol}'s and {@code sacct}'s ExitCode) as a wait status, as the
     * backends report it; null when it is not two numbers.
     */
    static Integer waitStatus(String exitCode) {
        String[] ec = exitCode.split(":");
        if (ec.length == 2 && ec[0].matches("\\d+") && ec[1].matches("\\d+")) {
            return (Integer.parseInt(ec[0]) << 8) | Integer.parseInt(ec[1]);
        }
        return null;
    }

    /** Where the next key of a {@code scontrol -o} line begins (a space, then {@code Key=}). */
    private static final Pattern NEXT_KEY = Pattern.compile(" [A-Za-z:/_]+=");

    /** A value in {@code Key=Value Key2=Value two} (a value runs up to the next " Key=" ). */
    static String field(String line, String key) {
        String k = key + "=";
        int at = line.startsWith(k) ? 0 : line.indexOf(" " + k);
        if (at < 0) {
            return "";
        }
        int start = at == 0 && line.startsWith(k) ? k.length() : at + 1 + k.length();
        Matcher m = NEXT_KEY.matcher(line);
        int end = line.length();
        if (m.find(start)) {
            end = m.start();
        }
        return line.substring(start, end).strip();
    }

    @Override
    public List<SlurmNode> nodes() {
        Commands.Result r = commands.run("sinfo", List.of("--json"));
        if (!r.ok()) {
            throw new BackendUnavailableException("could not list Slurm's nodes: " + r.summary());
        }
        try {
            return SlurmJson.nodes("sinfo --json", r.out());
        } catch (SlurmJson.Malformed e) {
            throw new BackendUnavailableException(e.getMessage());
        }
    }
}
