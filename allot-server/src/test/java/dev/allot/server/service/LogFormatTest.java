package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.allot.core.policy.PreemptionCause;
import dev.allot.server.store.AttemptOutcome;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The two log formats, on lines the LoggingObserver writes, captured from standard error. */
class LogFormatTest {
    static List<String> capture(LogFormat format, Runnable logging) {
        PrintStream real = System.err;
        ByteArrayOutputStream buffer = new ByteArrayOutputStream();
        try {
            System.setErr(new PrintStream(buffer, true, StandardCharsets.UTF_8));
            format.apply();
            logging.run();
        } finally {
            System.setErr(real);
            LogFormat.TEXT.apply();
        }
        return buffer.toString(StandardCharsets.UTF_8).lines().filter(l -> l.contains("w-7")).toList();
    }

    @Test
    void jsonIsOneObjectPerLineWithTheKeyValuePairsAsFields() throws Exception {
        List<String> lines = capture(LogFormat.JSON, () -> {
            LoggingObserver o = new LoggingObserver();
            o.started("w-7", "lab/nlp/pretrain", 42);
            o.preempted("w-7", "lab/nlp/pretrain",
                    PreemptionCause.by(PreemptionCause.Kind.FAIR_SHARE, "w-9", "ranks lower"), 3600);
            o.ended("w-7", "lab/nlp/pretrain", AttemptOutcome.REQUEUED);
        });
        assertThat(lines).hasSize(3);
        ObjectMapper json = new ObjectMapper();
        JsonNode started = json.readTree(lines.get(0));
        assertThat(started.get("message").asText()).isEqualTo("started");
        assertThat(started.get("level").asText()).isEqualTo("INFO");
        assertThat(started.get("logger_name").asText()).isEqualTo("dev.allot.server.events");
        assertThat(started.has("@timestamp")).isTrue();
        assertThat(started.has(LogFormat.PROPERTY)).as("no context properties").isFalse();
        assertThat(started.get("workload").asText()).isEqualTo("w-7");
        assertThat(started.get("allocation").asText()).isEqualTo("lab/nlp/pretrain");
        assertThat(started.get("waitSeconds").asLong()).isEqualTo(42);
        JsonNode preempted = json.readTree(lines.get(1));
        assertThat(preempted.get("cause").asText()).isEqualTo("fair_share");
        assertThat(preempted.get("preemptor").asText()).isEqualTo("w-9");
        assertThat(preempted.get("lostGpuSeconds").asLong()).isEqualTo(3600);
        assertThat(json.readTree(lines.get(2)).get("outcome").asText()).isEqualTo("requeued");
    }

    @Test
    void textIsOneLineWithKeyValuePairs() {
        List<String> lines = capture(LogFormat.TEXT, () -> new LoggingObserver().started("w-7", "lab/nlp/eval", 5));
        assertThat(lines).singleElement().asString()
                .matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}\\S+ INFO  events - started"
                        + " workload=w-7 allocation=lab/nlp/eval waitSeconds=5");
    }

    @Test
    void parseNamesTheChoices() {
        assertThat(LogFormat.parse("json")).isEqualTo(LogFormat.JSON);
        assertThatThrownBy(() -> LogFormat.parse("xml")).hasMessage("--log-format expects text or json, got 'xml'");
    }
}
