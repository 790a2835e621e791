package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** What {@code allot cancel} prints for each state the server answers with. */
class CancelRenderTest {
    private static String rendered(String json) throws Exception {
        StringWriter s = new StringWriter();
        try (PrintWriter out = new PrintWriter(s)) {
            new CancelCommand().render(new ObjectMapper().readTree(json), out);
        }
        return s.toString().strip();
    }

    @Test
    void aWorkloadThatHadEndedSaysThereWasNothingToCancel() throws Exception {
        assertThat(rendered("{\"id\": \"w-1\", \"state\": \"completed\", \"cancelRequested\": true}"))
                .isEqualTo("w-1: completed (it had already ended: nothing to cancel)");
        assertThat(rendered("{\"id\": \"w-2\", \"state\": \"failed\"}"))
                .isEqualTo("w-2: failed (it had already ended: nothing to cancel)");
    }

    @Test
    void aWaitingOrRunningWorkloadSaysWhatTheCancelDid() throws Exception {
        assertThat(rendered("{\"id\": \"w-3\", \"state\": \"cancelled\"}")).isEqualTo("w-3: cancelled");
        assertThat(rendered("{\"id\": \"w-4\", \"state\": \"running\", \"cancelRequested\": true}"))
                .isEqualTo("w-4: running (cancel requested)");
    }

    @Test
    void aRunningWorkloadWhoseStartTheBackendHasNotConfirmedIsShownStarting() throws Exception {
        // the server's "starting": running for the scheduler, not yet seen running by the backend (queue and cancel)
        assertThat(rendered("{\"id\": \"w-5\", \"state\": \"running\", \"starting\": true,"
                + " \"cancelRequested\": true}")).isEqualTo("w-5: starting (cancel requested)");
        assertThat(QueueCommand.state(new ObjectMapper().readTree("{\"state\": \"running\", \"starting\": true}")))
                .isEqualTo("starting");
        assertThat(QueueCommand.state(new ObjectMapper().readTree("{\"state\": \"running\", \"starting\": false}")))
                .isEqualTo("running");
    }
}
