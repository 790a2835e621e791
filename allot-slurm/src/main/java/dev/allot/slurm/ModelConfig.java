package dev.allot.slurm;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.policy.slurm.SlurmPolicy;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The configuration that makes a real Slurm run what Allot's {@code slurm} model assumes ({@link SlurmPolicy}):
 * {@code sacctmgr} commands for the association tree and the two QOS, and the {@code slurm.conf} lines for
 * multifactor priority with Fair Tree, backfill and preemption by QOS. With it a lab can run Slurm natively the way
 * the model measures it, compare the two on the same trace, or move between Slurm and Allot either way.
 *
 * <p>The mapping is the model's own (see {@link SlurmPolicy}): every node of the allocation tree becomes an account
 * with its share as {@code Fairshare} (shares are weights among siblings in both, so each sibling group is scaled to
 * whole numbers on its own); the users given are added to every leaf account, which is the association jobs run
 * under; allocated work runs in the protected QOS, unallocated work in the preemptible one, which only the protected
 * QOS preempts, by requeue. Where the two cannot say the same thing, the output says so in a comment next to the line.
 * The text is deterministic: the tree's order, the settings' order.
 */
public final class ModelConfig {
    /** Slurm stores account names in lower case, and its commands split on blanks, commas and '='. */
    private static final Pattern ACCOUNT = Pattern.compile("[a-z0-9][a-z0-9_.-]*");
    private static final Pattern USER = Pattern.compile("[a-z_][a-z0-9_.-]*[$]?");
    static final String ACCOUNT_EXPECTED = "letters, digits, '_', '.' or '-', starting with a letter or digit (Slurm"
            + " keeps account names in lower case)";

    /**
     * What the allocation tree and the policy do not say.
     *
     * @param users                  Slurm users to add to every leaf account (the associations jobs run under)
     * @param allocatedQos           the protected QOS's name
     * @param unallocatedQos         the preemptible QOS's name
     * @param schedIntervalSeconds   {@code sched_interval}: how often the main scheduler runs
     * @param bfIntervalSeconds      {@code bf_interval}: how often backfill runs
     * @param bfResolutionSeconds    {@code bf_resolution}: the time step of backfill's plan
     */
    public record Options(List<String> users, String allocatedQos, String unallocatedQos, long schedIntervalSeconds,
                          long bfIntervalSeconds, long bfResolutionSeconds) {
        /** Slurm's own defaults for the intervals (60 s, 30 s, 60 s), no users, QOS allocated and unallocated. */
        public static final Options DEFAULTS = new Options(List.of(), "allocated", "unallocated", 60, 30, 60);

        public Options {
            users = List.copyOf(users);
            for (String u : users) {
                if (!USER.matcher(u).matches()) {
                    throw new IllegalArgumentException("user '" + u + "': expected a Unix user name (lower-case"
                            + " letters, digits, '_', '.' or '-', not starting with a digit or '-')");
                }
            }
            if (users.stream().distinct().count() != users.size()) {
                throw new IllegalArgumentException("users " + users + ": a user is named twice");
            }
            for (String q : List.of(allocatedQos, unallocatedQos)) {
                if (q == null || !ACCOUNT.matcher(q).matches()) {
                    throw new IllegalArgumentException("QOS name '" + q + "': expected " + ACCOUNT_EXPECTED);
                }
            }
            if (allocatedQos.equals(unallocatedQos)) {
                throw new IllegalArgumentException("the protected and the preemptible QOS need two names, got '"
                        + allocatedQos + "' twice");
            }
            if (schedIntervalSeconds < 1 || bfIntervalSeconds < 1 || bfResolutionSeconds < 1) {
                throw new IllegalArgumentException("sched_interval, bf_interval and bf_resolution must be at least"
                        + " 1 s, got " + schedIntervalSeconds + ", " + bfIntervalSeconds + ", " + bfResolutionSeconds);
            }
        }

        public Options withUsers(List<String> u) {
            return new Options(u, allocatedQos, unallocatedQos, schedIntervalSeconds, bfIntervalSeconds,
                    bfResolutionSeconds);
        }

        public Options withIntervals(long sched, long bf, long resolution) {
            return new Options(users, allocatedQos, unallocatedQos, sched, bf, resolution);
        }
    }

    /**
     * The generated text.
     *
     * @param sacctmgr  a shell script of {@code sacctmgr -i} commands, for a cluster with accounting (slurmdbd)
     * @param slurmConf lines for {@code slurm.conf}; where a setting is already there, these replace it
     * @param accounts  allocation name to Slurm account name, in the tree's preorder
     */
    public record Output(String sacctmgr, String slurmConf, Map<String, String> accounts) {
    }

    private final AllocationTree tree;
    private final SlurmPolicy.Config model;
    private final Options options;
    private final String[] account;

    private ModelConfig(AllocationTree tree, SlurmPolicy.Config model, Options options) {
        this.tree = tree;
        this.model = model;
        this.options = options;
        this.account = accountNames(tree);
    }

    /**
     * Writes the configuration of {@code model} on {@code tree}.
     *
     * @throws IllegalArgumentException naming the allocation or setting Slurm cannot take
     */
    public static Output of(AllocationTree tree, SlurmPolicy.Config model, Options options) {
        ModelConfig c = new ModelConfig(tree, model, options);
        Map<String, String> accounts = new java.util.LinkedHashMap<>();
        for (int n = 0; n < tree.nodeCount(); n++) {
            accounts.put(tree.name(n), c.account[n]);
        }
        return new Output(c.sacctmgr(), c.slurmConf(), accounts);
    }

    /** The Slurm account of every tree node: its name in lower case; the tree's root may be Slurm's own root. */
    private static String[] accountNames(AllocationTree tree) {
        String[] out = new String[tree.nodeCount()];
        Map<String, String> taken = new HashMap<>();
        for (int n = 0; n < tree.nodeCount(); n++) {
            String name = tree.name(n);
            String a = name.toLowerCase(Locale.ROOT);
            if (!ACCOUNT.matcher(a).matches()) {
                throw new IllegalArgumentException("allocation '" + name + "' cannot be a Slurm account: expected "
                        + ACCOUNT_EXPECTED);
            }
            if (a.equals("root") && n != 0) {
                throw new IllegalArgumentException("allocation '" + name + "' cannot be a Slurm account: 'root' is"
                        + " Slurm's own top account; only the tree's root may be named so");
            }
            String other = taken.putIfAbsent(a, name);
            if (other != null) {
                throw new IllegalArgumentException("allocations '" + other + "' and '" + name + "' would both be"
                        + " Slurm account '" + a + "' (Slurm keeps account names in lower case)");
            }
            out[n] = a;
        }
        return out;
    }

    // ------------------------------------------------------------------ sacctmgr

    private String sacctmgr() {
        StringBuilder b = new StringBuilder();
        b.append("#!/bin/sh\n");
        b.append("# Written by allot slurm-config: the associations and QOS of Allot's slurm model.\n");
        b.append("# Run once on a cluster with accounting (slurmdbd), with SLURM_CONF set; -i answers yes.\n");
        b.append("# A second run reports what exists already and changes nothing.\n\n");
        String prot = options.allocatedQos();
        String free = options.unallocatedQos();
        b.append("# QOS: allocated work (minimum runtime > 0) is protected, unallocated work (minimum runtime 0)\n");
        b.append("# is preemptible, by requeue, only by the protected QOS. The QOS factor of the priority is a\n");
        b.append("# QOS's Priority over the highest Priority of any QOS on the cluster: the model's is 1 and 0, so\n");
        b.append("# no other QOS may have a Priority above ").append(QOS_PRIORITY).append(".\n");
        b.append("sacctmgr -i add qos ").append(prot).append(" Priority=").append(QOS_PRIORITY).append('\n');
        b.append("sacctmgr -i add qos ").append(free).append(" Priority=0 PreemptMode=requeue UsageFactor=")
                .append(number(model.preemptibleUsageFactor())).append(" GraceTime=")
                .append(model.graceTime().getSeconds()).append('\n');
        if (model.graceTime().getSeconds() > 0) {
            b.append("# GraceTime: a victim gets SIGCONT+SIGTERM at once and is requeued when it runs out; the model"
                    + " stops it then too.\n");
        }
        b.append("sacctmgr -i modify qos ").append(prot).append(" set Preempt=").append(free).append('\n');
        b.append('\n');
        b.append("# Accounts: the allocation tree. Fairshare = the share, scaled per sibling group to whole numbers\n");
        b.append("# (only ratios among siblings matter, in Slurm as in the model).\n");
        long[] shares = wholeShares();
        for (int n = 0; n < tree.nodeCount(); n++) {
            if (n == 0 && account[0].equals("root")) {
                continue; // Slurm's own root
            }
            String parent = n == 0 ? "root" : account[tree.parent(n)];
            long share = n == 0 ? 1 : shares[n];
            b.append("sacctmgr -i add account ").append(account[n]).append(" Parent=").append(parent)
                    .append(" Fairshare=").append(share)
                    .append(" Description=").append(quote("allot allocation " + tree.path(n)))
                    .append(" Organization=").append(account[0]);
            if (n != 0 && !exact(n)) {
                b.append("  # share ").append(number(tree.share(n))).append(" rounded");
            }
            b.append('\n');
        }
        b.append('\n');
        b.append("# Users: the associations jobs run under are the leaf accounts, as in the model. Each user below\n");
        b.append("# gets Fairshare=1 in every leaf account. Fair Tree ranks user associations: with one user per\n");
        b.append("# leaf account the ranks are the model's ranks of leaves; several users of one leaf account are\n");
        b.append("# ranked apart by Slurm (the model does not tell a workload's user from its allocation).\n");
        if (options.users().isEmpty()) {
            b.append("# (no --user given: add them with, for each leaf account LEAF and user NAME,\n");
            b.append("#  sacctmgr -i add user NAME Account=LEAF Fairshare=1 QOS=").append(prot).append(',')
                    .append(free).append(" DefaultQOS=").append(prot).append(")\n");
        }
        String firstLeaf = account[tree.leafNode(0)];
        for (String user : options.users()) {
            for (int l = 0; l < tree.leafCount(); l++) {
                b.append("sacctmgr -i add user ").append(user).append(" Account=").append(account[tree.leafNode(l)])
                        .append(" Fairshare=1 QOS=").append(prot).append(',').append(free).append(" DefaultQOS=")
                        .append(prot).append('\n');
            }
            b.append("sacctmgr -i modify user ").append(user).append(" set DefaultAccount=").append(firstLeaf)
                    .append('\n');
        }
        List<String> coordinators = new ArrayList<>();
        for (int n = 0; n < tree.nodeCount(); n++) {
            for (String m : tree.managers(n)) {
                coordinators.add(m + " " + account[n]);
            }
        }
        if (!coordinators.isEmpty()) {
            b.append('\n');
            b.append("# Managers: Slurm's account coordinators (they may manage the users and limits below their\n");
            b.append("# account; Allot's managers also set shares below it, which coordinators cannot).\n");
            for (String c : coordinators) {
                String[] mc = c.split(" ");
                boolean known = options.users().contains(mc[0]);
                b.append(known ? "" : "# ").append("sacctmgr -i add coordinator Account=").append(mc[1])
                        .append(" Names=").append(mc[0]);
                b.append(known ? "\n" : "   # once " + mc[0] + " is a Slurm user (a user association of their own"
                        + " would take a rank in Fair Tree)\n");
            }
        }
        return b.toString();
    }

    /** The QOS priority of the protected QOS; the preemptible one has 0. */
    static final int QOS_PRIORITY = 1000;

    /** Shares as whole numbers with the same ratios among siblings: scaled by a power of ten, then by their gcd. */
    private long[] wholeShares() {
        long[] out = new long[tree.nodeCount()];
        for (int p = 0; p < tree.nodeCount(); p++) {
            int[] kids = tree.children(p);
            if (kids.length == 0) {
                continue;
            }
            int scale = 0;
            for (int c : kids) {
                scale = Math.max(scale, Math.min(6, Math.max(0,
                        BigDecimal.valueOf(tree.share(c)).stripTrailingZeros().scale())));
            }
            BigInteger gcd = BigInteger.ZERO;
            BigInteger[] scaled = new BigInteger[kids.length];
            for (int i = 0; i < kids.length; i++) {
                scaled[i] = BigDecimal.valueOf(tree.share(kids[i])).movePointRight(scale)
                        .setScale(0, java.math.RoundingMode.HALF_UP).toBigIntegerExact();
                gcd = gcd.gcd(scaled[i]);
            }
            for (int i = 0; i < kids.length; i++) {
                BigInteger v = gcd.signum() == 0 ? scaled[i] : scaled[i].divide(gcd);
                if (v.bitLength() > 31) {
                    throw new IllegalArgumentException("allocation '" + tree.name(kids[i]) + "': its share "
                            + number(tree.share(kids[i])) + " against its siblings' needs a Fairshare above 2^31,"
                            + " which Slurm cannot hold; expected shares whose ratios fit in whole numbers below that");
                }
                out[kids[i]] = v.longValue();
            }
        }
        return out;
    }

    /** Whether a node's share scaled to a whole number kept its ratio exactly (at most 6 decimals). */
    private boolean exact(int node) {
        return BigDecimal.valueOf(tree.share(node)).stripTrailingZeros().scale() <= 6;
    }

    // ------------------------------------------------------------------ slurm.conf

    private String slurmConf() {
        StringBuilder b = new StringBuilder();
        b.append("# Written by allot slurm-config: slurm.conf settings for Allot's slurm model. Where slurm.conf\n");
        b.append("# has one of these keys already, replace it. Setting by setting of the model (allot policies).\n\n");

        b.append("# Accounting: QOS and associations are enforced only with slurmdbd (without it --qos is ignored).\n");
        b.append("AccountingStorageType=accounting_storage/slurmdbd\n");
        b.append("AccountingStorageEnforce=associations,limits,qos\n");
        b.append("AccountingStorageTRES=gres/gpu\n");
        b.append("# Usage is GPU-seconds in the model; Slurm charges billing TRES, CPUs unless told otherwise. This\n");
        b.append("# line sets it for the PartitionName= lines after it (or add it to each of them):\n");
        b.append("PartitionName=DEFAULT TRESBillingWeights=GRES/gpu=1.0\n\n");

        b.append("# Priority: floor(weight-fairshare x F + weight-age x A + weight-qos x Q), F from Fair Tree.\n");
        b.append("PriorityType=priority/multifactor\n");
        b.append("# Fair Tree is Slurm's default since 19.05 (older versions need PriorityFlags=FAIR_TREE); no flag\n");
        b.append("# changes the factors the model computes, so PriorityFlags should have none.\n");

        b.append("PriorityWeightFairshare=").append(model.weightFairshare()).append('\n');
        b.append("PriorityWeightAge=").append(model.weightAge()).append('\n');
        b.append("PriorityWeightQOS=").append(model.weightQos()).append('\n');
        b.append("# The model has no job-size, partition, association, TRES or nice factors (no PriorityWeightTRES).\n");
        b.append("PriorityWeightJobSize=0\nPriorityWeightPartition=0\nPriorityWeightAssoc=0\n");
        b.append("PriorityFavorSmall=NO\n");
        b.append("PriorityMaxAge=").append(slurmTime(model.maxAge())).append('\n');
        long half = model.decayHalfLife().getSeconds();
        b.append("# decay-half-life; the shared lookback of policy.yaml is not used by the slurm model.\n");
        if (half == 0) {
            b.append("# 0: usage never decays, and the model never resets it.\n");
        } else if (half % 60 != 0) {
            b.append("# Slurm takes whole minutes: ").append(model.decayHalfLife().toString()).append(" rounded up.\n");
        }
        b.append("PriorityDecayHalfLife=").append(half == 0 ? "0" : slurmTime(Duration.ofSeconds(roundUpMinute(half))))
                .append('\n');
        b.append("PriorityUsageResetPeriod=NONE\n");
        long calc = model.calcPeriod().getSeconds();
        if (calc % 60 != 0) {
            b.append("# calc-period is ").append(calc).append(" s; Slurm's PriorityCalcPeriod takes whole minutes,"
                    + " rounded up here (set the model to whole minutes to compare the two).\n");
        }
        b.append("PriorityCalcPeriod=").append(Math.max(1, roundUpMinute(calc) / 60)).append('\n');
        b.append('\n');

        b.append("# Backfill. The model decides at every event; Slurm's main scheduler runs every sched_interval\n");
        b.append("# (and at job submit and end, within batch_sched_delay) and backfill every bf_interval, so starts\n");
        b.append("# lag the model's by up to these. Backfill plans in steps of bf_resolution over bf_window; the model\n");
        b.append("# plans to the second with no window. The model makes one reservation (EASY) where Slurm's\n");
        b.append("# backfill makes one per job it tests. Time limits: sbatch --time = the workload's duration x\n");
        b.append("# time-limit-factor (").append(number(model.timeLimitFactor())).append("), in whole minutes:"
                + " Slurm has no finer limit.\n");
        if (model.backfillMaxJobs() == 0) {
            b.append("# backfill-max-jobs 0: no backfill.\n");
            b.append("SchedulerType=sched/builtin\n");
            b.append("SchedulerParameters=batch_sched_delay=0,sched_interval=").append(options.schedIntervalSeconds())
                    .append('\n');
        } else {
            b.append("SchedulerType=sched/backfill\n");
            b.append("SchedulerParameters=batch_sched_delay=0,sched_interval=").append(options.schedIntervalSeconds())
                    .append(",bf_interval=").append(options.bfIntervalSeconds())
                    .append(",bf_resolution=").append(options.bfResolutionSeconds())
                    .append(",bf_max_job_test=").append(model.backfillMaxJobs()).append('\n');
        }
        b.append('\n');

        b.append("# Preemption by QOS, by requeue: the job goes back to the queue with a new submit time (its age\n");
        b.append("# starts over, as in the model); work that checkpoints resumes from its checkpoint when its\n");
        b.append("# script does so, the rest starts over. Slurm keeps a requeued job from starting again for a few\n");
        b.append("# seconds (the model restarts it at once).\n");
        b.append("PreemptType=preempt/qos\n");
        b.append("PreemptMode=REQUEUE\n");
        b.append("JobRequeue=1\n");
        b.append("PreemptExemptTime=").append(slurmTime(model.preemptExemptTime())).append('\n');
        b.append("# grace-time is the preemptible QOS's GraceTime (").append(model.graceTime().getSeconds())
                .append(" s): see the sacctmgr commands.\n");
        b.append("# Not expressible in Slurm, and not needed: the model's shortcuts setting (it changes no decision).\n");
        return b.toString();
    }

    private static long roundUpMinute(long seconds) {
        return (seconds + 59) / 60 * 60;
    }

    /** Slurm's time format for a duration: {@code D-HH:MM:SS}, or {@code HH:MM:SS} under a day. */
    static String slurmTime(Duration d) {
        long s = d.getSeconds();
        long days = s / 86_400;
        String hms = String.format(Locale.ROOT, "%02d:%02d:%02d", s % 86_400 / 3600, s % 3600 / 60, s % 60);
        return days > 0 ? days + "-" + hms : hms;
    }

    private static String number(double x) {
        return BigDecimal.valueOf(x).stripTrailingZeros().toPlainString();
    }

    /** Single-quoted for sh when it holds anything but plain characters. */
    private static String quote(String s) {
        return s.matches("[A-Za-z0-9_./-]+") ? s : "'" + s.replace("'", "'\\''") + "'";
    }
}
