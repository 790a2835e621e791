package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SlurmConfigCommandTest {
    @TempDir
    Path dir;

    @Test
    void printsTheSacctmgrCommandsAndSlurmConfOfTheExamplesTreeAndPolicy() {
        Cli.Result r = Cli.run("slurm-config", "--allocations", Cli.example("tiny/allocations.yaml"),
                "--policy", Cli.example("tiny/policy.yaml"), "--user", "ana");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("# ---- sacctmgr.sh\n#!/bin/sh\n")
                .contains("sacctmgr -i add account nlp Parent=lab Fairshare=3 ")
                .contains("sacctmgr -i add account vision Parent=lab Fairshare=2 ")
                .contains("sacctmgr -i add user ana Account=nlp-pretrain Fairshare=1 QOS=allocated,unallocated")
                .contains("# ---- slurm.conf\n")
                .contains("PriorityCalcPeriod=5\n") // the model's default, 5 minutes
                .contains("SchedulerParameters=batch_sched_delay=0,sched_interval=60,bf_interval=30,bf_resolution=60,"
                        + "bf_max_job_test=500\n");
    }

    @Test
    void writesTwoFilesIntoTheOutFolderWithTheGivenIntervals() throws Exception {
        Path out = dir.resolve("slurm");
        Cli.Result r = Cli.run("slurm-config", "--allocations", Cli.example("tiny/allocations.yaml"), "--out",
                out.toString(), "--sched-interval", "2s", "--bf-interval", "1s", "--bf-resolution", "1s");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("wrote " + out.resolve("sacctmgr.sh") + " (6 accounts, 0 users)");
        assertThat(Files.readString(out.resolve("sacctmgr.sh"))).contains("sacctmgr -i add qos allocated");
        assertThat(Files.readString(out.resolve("slurm.conf")))
                .contains("sched_interval=2,bf_interval=1,bf_resolution=1,");
    }

    @Test
    void badInputIsOneLineNamingWhatIsWrong() throws Exception {
        Path tree = dir.resolve("allocations.yaml");
        Files.writeString(tree, "name: lab\nchildren:\n  - name: team a\n    share: 1\n");
        Cli.Result r = Cli.run("slurm-config", "--allocations", tree.toString());
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).isEqualTo("allot: allocation 'team a' cannot be a Slurm account: expected letters,"
                + " digits, '_', '.' or '-', starting with a letter or digit (Slurm keeps account names in lower"
                + " case)\n");

        Cli.Result interval = Cli.run("slurm-config", "--allocations", Cli.example("tiny/allocations.yaml"),
                "--bf-interval", "soon");
        assertThat(interval.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(interval.err()).isEqualTo("allot: --bf-interval: expected a duration such as 30s or 2m, got 'soon'\n");

        Path policy = dir.resolve("policy.yaml");
        Files.writeString(policy, "slurm:\n  calc-period: 0s\n");
        Cli.Result p = Cli.run("slurm-config", "--allocations", Cli.example("tiny/allocations.yaml"), "--policy",
                policy.toString());
        assertThat(p.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(p.err()).startsWith("allot: ").contains("calc-period").doesNotContain("Exception");

        Cli.Result missing = Cli.run("slurm-config", "--allocations", dir.resolve("nope.yaml").toString());
        assertThat(missing.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(missing.err()).startsWith("allot: ").contains("nope.yaml");
    }
}
