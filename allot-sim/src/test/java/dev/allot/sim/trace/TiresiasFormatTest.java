package dev.allot.sim.trace;

import static dev.allot.sim.trace.Traces.assertError;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.allot.core.model.WorkloadSpec;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Tiresias jobs: ids, the model as allocation, ties broken by id, rejections. */
class TiresiasFormatTest {
    private static final String HEADER = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n";

    @TempDir
    Path tmp;

    @Test
    void jobsKeepTheirIdsAndTheModelIsTheAllocation() {
        WorkloadTable t = Traces.table(Traces.of("tiresias", Traces.fixture("tiresias.csv")));
        assertThat(t).hasSize(8);
        assertThat(t).extracting(WorkloadSpec::id, WorkloadSpec::submitSeconds, WorkloadSpec::allocation,
                        WorkloadSpec::gpus, w -> w.duration().getSeconds())
                .startsWith(tuple("tiresias-0", 0L, "vgg19", 1, 120L), tuple("tiresias-1", 30L, "resnet50", 8, 5400L));
        assertThat(t.summary().timeZeroEpoch()).isNull();
    }

    @Test
    void equalSubmitTimesAreOrderedById() {
        Path p = Traces.write(tmp, "j.csv", HEADER + "b,1,5,1,m,60,0\na,1,5,1,m,60,0\nc,1,0,1,m,60,0\n");
        WorkloadTable t = Traces.table(Traces.of("tiresias", p));
        assertThat(t).extracting(WorkloadSpec::id).containsExactly("tiresias-c", "tiresias-a", "tiresias-b");
    }

    @Test
    void badRowsAreRejectedWithTheirLocation() {
        Path p = Traces.write(tmp, "j.csv", HEADER + "0,1,0,1,m,60,0\n0,1,5,1,m,60,0\n");
        assertError(Traces.error(Traces.of("tiresias", p)), "j.csv", 3, 1, "job_id",
                "expected a unique id, got 'tiresias-0', already used on line 2");
        p = Traces.write(tmp, "j.csv", HEADER + "0,1,0,1,m,0,0\n");
        assertError(Traces.error(Traces.of("tiresias", p)), "j.csv", 2, 6, "duration",
                "expected a whole number of seconds >= 1, got '0'");
        p = Traces.write(tmp, "j.csv", HEADER + "0,1,-4,1,m,60,0\n");
        assertError(Traces.error(Traces.of("tiresias", p)), "j.csv", 2, 3, "submit_time",
                "expected a whole number of seconds >= 0, got '-4'");
        p = Traces.write(tmp, "j.csv", HEADER + "0,1,0,1,,60,0\n");
        assertError(Traces.error(Traces.of("tiresias", p)), "j.csv", 2, 5, "model_name",
                "expected a model name, got nothing");
    }

    @Test
    void numbersBeyondTheirLimitSayTheLimit() {
        Path p = Traces.write(tmp, "j.csv", HEADER + "0,99999999999,0,1,m,60,0\n");
        assertError(Traces.error(Traces.of("tiresias", p)), "j.csv", 2, 2, "num_gpu",
                "expected a whole number >= 1, at most 2,147,483,647, got '99999999999'");
        p = Traces.write(tmp, "j.csv", HEADER + "0,1,99999999999999999999,1,m,60,0\n");
        assertError(Traces.error(Traces.of("tiresias", p)), "j.csv", 2, 3, "submit_time",
                "expected a whole number of seconds >= 0, at most 2,305,843,009,213,693,951,"
                        + " got '99999999999999999999'");
        p = Traces.write(tmp, "j.csv", HEADER + "0,1,0,1,m,99999999999,0\n");
        assertError(Traces.error(Traces.of("tiresias", p)), "j.csv", 2, 6, "duration",
                "expected a whole number of seconds >= 1, at most 2,147,483,647, got '99999999999'");
    }

    @Test
    void aSubmissionBeyondTheScenariosReachIsRefusedByItsId() {
        // 95 years after the first: it ran for minutes making hourly series, and 950,000 years ended in a
        // NegativeArraySizeException
        Path p = Traces.write(tmp, "j.csv", HEADER + "0,1,0,1,m,60,0\n1,1,3000000000,1,m,60,0\n");
        assertError(Traces.error(Traces.of("tiresias", p)), "j.csv", 0, 0, null, "workload 'tiresias-1': expected a"
                + " time at most 24855d3h14m7s (2,147,483,647 seconds, about 68 years) after time 0, got 34722d5h20m");
    }
}
