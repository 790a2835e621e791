package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class CliProbeTest {
    private static final String RUNNING = Fixtures.read("scontrol-job-6.txt").strip();
    private static final String EXITED_3 = Fixtures.read("scontrol-job-7.txt").strip();
    private static final String PENDING = Fixtures.read("scontrol-job-9.txt").strip();
    private static final String DRAINED_NODE = Fixtures.read("scontrol-node-n4-drained.txt").strip();

    @Test
    void aRunningJobsLineReadsAsItsTagStateAndNodes() {
        SlurmJob j = CliProbe.fromScontrol(6, RUNNING);

        assertThat(j.id()).isEqualTo(6);
        assertThat(j.name()).isEqualTo("allot:w-1#1");
        assertThat(j.comment()).isEqualTo("allot:inst1");
        assertThat(j.state()).isEqualTo("RUNNING");
        assertThat(j.nodes()).containsExactly("n1", "n2");
        assertThat(j.partition()).isEqualTo("own");
        assertThat(j.restarts()).isZero();
        assertThat(j.exitStatus()).isZero();
    }

    @Test
    void anExitCodeOfThreeIsTheWaitStatusSquequeWouldReport() {
        SlurmJob j = CliProbe.fromScontrol(7, EXITED_3);

        assertThat(j.state()).isEqualTo("FAILED");
        assertThat(j.reason()).isEqualTo("NonZeroExitCode");
        assertThat(j.exitStatus()).isEqualTo(768);
        assertThat(j.exitCode()).isEqualTo(3);
        assertThat(j.nodes()).containsExactly("n1");
    }

    @Test
    void anEndedJobsEndTimeIsReadAsUtcAndARunningJobsTimeLimitIsNoEnd() throws Exception {
        java.util.List<SlurmJob> jobs = CliProbe.listing(Fixtures.read("scontrol-jobs.txt"));
        java.util.function.LongFunction<SlurmJob> job = id -> jobs.stream().filter(j -> j.id() == id).findFirst()
                .orElseThrow();

        assertThat(job.apply(3).state()).isEqualTo("COMPLETED");
        assertThat(job.apply(3).endedAtMillis())
                .isEqualTo(java.time.Instant.parse("2026-12-03T08:29:28Z").toEpochMilli());
        assertThat(job.apply(12).endedAtMillis()) // CANCELLED
                .isEqualTo(java.time.Instant.parse("2026-12-03T08:29:29Z").toEpochMilli());
        assertThat(job.apply(432).state()).isEqualTo("RUNNING");
        assertThat(job.apply(432).endTimeMillis()).as("its time limit")
                .isEqualTo(java.time.Instant.parse("2027-12-03T08:41:42Z").toEpochMilli());
        assertThat(job.apply(432).endedAtMillis()).isNull();
        assertThat(job.apply(391).endTimeMillis()).as("EndTime=Unknown").isNull();
        assertThat(CliProbe.fromScontrol(7, EXITED_3).endedAtMillis())
                .isEqualTo(java.time.Instant.parse("2026-12-01T10:09:09Z").toEpochMilli());
    }

    @Test
    void aPendingJobHasAnEmptyNodeListNotTheRequestedOne() {
        SlurmJob j = CliProbe.fromScontrol(9, PENDING);

        assertThat(j.state()).isEqualTo("PENDING");
        assertThat(j.reason()).isEqualTo("BeginTime");
        assertThat(j.nodes()).isEmpty(); // ReqNodeList=n3 is not where it runs
        assertThat(CliProbe.field(PENDING, "ReqNodeList")).isEqualTo("n3");
        assertThat(CliProbe.field(PENDING, "NodeList")).isEmpty();
    }

    @Test
    void fieldsAreFoundByWholeKeyNotBySuffix() {
        assertThat(CliProbe.field(RUNNING, "JobId")).isEqualTo("6");
        assertThat(CliProbe.field(RUNNING, "Comment")).isEqualTo("allot:inst1"); // followed by two spaces
        assertThat(CliProbe.field(RUNNING, "Power")).isEmpty();
        assertThat(CliProbe.field(RUNNING, "TresPerNode")).isEqualTo("gres:gpu:3");
        assertThat(CliProbe.field(RUNNING, "TRES")).isEqualTo("cpu=2,node=2,billing=2");
        assertThat(CliProbe.field(RUNNING, "CPUs/Task")).isEqualTo("1");
        assertThat(CliProbe.field(RUNNING, "NoSuchKey")).isEmpty();
    }

    @Test
    void valuesWithSpacesRunToTheNextKey() {
        assertThat(CliProbe.field(DRAINED_NODE, "Reason")).isEqualTo("allot: test [root@2026-12-01T10:09:22]");
        assertThat(CliProbe.field(DRAINED_NODE, "State")).isEqualTo("IDLE+DRAIN");
        assertThat(CliProbe.field(DRAINED_NODE, "OS")).isEqualTo("Linux 6.18.44-fc-v669 #1 SMP PREEMPT_DYNAMIC @0");
        assertThat(CliProbe.field(DRAINED_NODE, "CoresPerSocket")).isEqualTo("1");
        assertThat(CliProbe.field(DRAINED_NODE, "Partitions")).isEqualTo("own,extra");
        String spaced = "JobId=12 JobName=allot:w-1#1 JobState=PENDING Reason=allot: waiting [root@x] Comment=a b c"
                + " Partition=own";
        assertThat(CliProbe.field(spaced, "Reason")).isEqualTo("allot: waiting [root@x]");
        assertThat(CliProbe.field(spaced, "Comment")).isEqualTo("a b c");
        assertThat(CliProbe.field(spaced, "Partition")).isEqualTo("own");
    }

    @Test
    void nullsReadAsNothing() {
        String line = "JobId=5 JobName=allot:w-1#2 JobState=PENDING Reason=Resources Restarts=1 ExitCode=0:0"
                + " Partition=own NodeList=(null) Comment=(null)";
        SlurmJob j = CliProbe.fromScontrol(5, line);

        assertThat(j.nodes()).isEmpty();
        assertThat(j.comment()).isEmpty();
        assertThat(j.restarts()).isEqualTo(1);
        assertThat(j.pending()).isTrue();
    }
}
