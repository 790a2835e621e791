package dev.allot.server.store;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.net.ServerSocket;
import org.junit.jupiter.api.Test;

/**
 * A store that cannot be opened says why in one line, as {@code allot serve} prints it: an unreachable PostgreSQL
 * printed Flyway's block (a rule of dashes, 'SQL State : 08001', 'Error Code : 0', the message again).
 */
class StoreOpenFailureTest {
    @Test
    void anUnreachablePostgresIsOneLineNamingTheConnection() throws IOException {
        int closed;
        try (ServerSocket s = new ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        String url = "jdbc:postgresql://127.0.0.1:" + closed + "/allot";
        assertThatThrownBy(() -> Store.open(url, "allot", null)).isInstanceOf(StoreException.class)
                .hasMessageStartingWith("could not create or upgrade the store's schema: Unable to obtain connection"
                        + " from database: Connection to 127.0.0.1:" + closed + " refused")
                .hasMessageNotContaining("\n").hasMessageNotContaining("SQL State");
    }
}
