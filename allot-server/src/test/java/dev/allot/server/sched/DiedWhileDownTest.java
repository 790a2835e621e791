package dev.allot.server.sched;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.backend.AttemptKey;
import dev.allot.core.backend.AttemptStatus;
import dev.allot.core.backend.AttemptStatus.Phase;
import org.junit.jupiter.api.Test;

/** Which ends of an adopted attempt, first seen ended, count as dying while the service was down. */
class DiedWhileDownTest {
    private static final AttemptKey KEY = new AttemptKey("w-1", 1);

    private static AttemptStatus exited(Integer code) {
        return new AttemptStatus(KEY, Phase.EXITED, code, "exited");
    }

    @Test
    void noExitCodeOrASignalIsDeathWhileDown() {
        assertThat(DiedWhileDown.lostReason(exited(null))).hasValue("its process died while the service was down,"
                + " without recording an exit code");
        assertThat(DiedWhileDown.lostReason(exited(130))).hasValue("its process died while the service was down,"
                + " killed by SIGINT (exit code 130) without a stop being asked for");
        assertThat(DiedWhileDown.lostReason(exited(129))).get().asString().contains("SIGHUP");
        assertThat(DiedWhileDown.lostReason(exited(137))).get().asString().contains("SIGKILL");
        assertThat(DiedWhileDown.lostReason(exited(143))).get().asString().contains("SIGTERM");
        assertThat(DiedWhileDown.lostReason(exited(192))).get().asString().contains("signal 64");
    }

    @Test
    void theCommandsOwnAnswerOrAnotherEndIsNot() {
        for (int code : new int[] {0, 1, 3, 127, 128, 193, 255}) {
            assertThat(DiedWhileDown.lostReason(exited(code))).as("exit code %s", code).isEmpty();
        }
        assertThat(DiedWhileDown.lostReason(new AttemptStatus(KEY, Phase.STOPPED, null, "stopped"))).isEmpty();
        assertThat(DiedWhileDown.lostReason(new AttemptStatus(KEY, Phase.FAILED_TO_START, null, "no"))).isEmpty();
    }
}
