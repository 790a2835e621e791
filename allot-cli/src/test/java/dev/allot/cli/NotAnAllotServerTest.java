package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A client command pointed at a server that is not Allot (another program's port, a proxy's HTML page) or at a plain
 * HTTP Allot with {@code https://}: the one-line error says what is likely wrong with {@code --server}, rather than
 * only quoting the first line of an HTML page or asking about a certificate no one sent.
 */
class NotAnAllotServerTest {
    HttpServer web;
    String url;

    @BeforeEach
    void startAWebServerThatIsNotAllot() throws IOException {
        web = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        web.createContext("/", exchange -> {
            byte[] page = "<!DOCTYPE HTML>\n<html><body>Not Found</body></html>\n".getBytes(StandardCharsets.UTF_8);
            int status = exchange.getRequestURI().getPath().equals("/v1/me") ? 200 : 404;
            exchange.getResponseHeaders().set("Content-Type", "text/html");
            exchange.sendResponseHeaders(status, page.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(page);
            }
        });
        web.start();
        url = "http://127.0.0.1:" + web.getAddress().getPort();
    }

    @AfterEach
    void stop() {
        web.stop(0);
    }

    @Test
    void givenAnotherWebServer_whenTheQueueIsAskedOfIt_thenTheErrorAsksWhetherServerIsAnAllotService() {
        Cli.Result r = Cli.run("queue", "--server", url, "--token", "s3cret");
        assertThat(r.exit()).isEqualTo(AllotCommand.EXIT_BAD_INPUT);
        assertThat(r.err()).startsWith("allot: the server answered GET /v1/workloads with HTTP 404: <!DOCTYPE HTML>")
                .contains("is " + url + " an Allot service? set --server or ALLOT_SERVER")
                .doesNotContain("s3cret").doesNotContain("\tat ");
    }

    @Test
    void givenAnotherWebServer_whenItAnswers200WithAPage_thenTheErrorAsksWhetherServerIsAnAllotService() {
        Cli.Result r = Cli.run("token", "revoke", "abc", "--server", url, "--token", "s3cret");
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.err()).contains("with HTTP 200 but no JSON", "is " + url + " an Allot service?");
    }

    @Test
    void givenAPlainHttpServer_whenTheClientSpeaksTlsToIt_thenTheErrorSaysToUseHttpNotACaCert() throws Exception {
        // as Jetty does: a TLS hello is not HTTP, so it answers a plain 400 at once
        try (ServerSocket plain = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread answering = new Thread(() -> {
                try (Socket s = plain.accept()) {
                    s.getInputStream().read(new byte[512]);
                    s.getOutputStream().write("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                            .getBytes(StandardCharsets.US_ASCII));
                } catch (IOException ignored) {
                    // the test's assertion tells
                }
            });
            answering.start();
            String authority = "127.0.0.1:" + plain.getLocalPort();
            Cli.Result r = Cli.run("queue", "--server", "https://" + authority, "--token", "s3cret");
            answering.join(10_000);
            assertThat(r.exit()).isEqualTo(1);
            assertThat(r.err()).contains("over TLS", "it answers plain HTTP: give --server http://" + authority)
                    .doesNotContain("--ca-cert").doesNotContain("\tat ");
        }
    }
}
