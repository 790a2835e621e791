package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code allot serve --tls-cert --tls-key} and {@code --bind}: the client commands talk HTTPS to it (trusting the
 * certificate {@code serve} wrote into the client configuration), and bad TLS files or addresses are refused
 * naming the option before anything is created.
 */
class ServeTlsTest {
    static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    Path dir;
    Path clientJson;
    Function<String, String> realEnvironment;

    @BeforeEach
    void isolate() {
        clientJson = dir.resolve("config").resolve("client.json");
        realEnvironment = ClientOptions.useEnvironment(Map.of(ClientConfig.CONFIG_ENV, clientJson.toString()));
    }

    @AfterEach
    void restore() {
        ServeCommand.stopAll();
        ClientOptions.environment = realEnvironment;
    }

    @Test
    void givenPemFilesWhenServingThenTheClientCommandsTalkHttpsAndTheBannerSaysSo() throws Exception {
        Path[] pem = selfSigned(dir.resolve("tls"));
        Path data = dir.resolve("data");
        Path marker = data.resolve("service.json");
        CompletableFuture<Cli.Result> run = CompletableFuture.supplyAsync(() -> Cli.run("serve", "--demo", "--port",
                "0", "--data-dir", data.toString(), "--backend", "simulated", "--node", "n1", "--gpus", "4",
                "--tls-cert", pem[0].toString(), "--tls-key", pem[1].toString()));
        for (int i = 0; i < 600 && !Files.exists(marker) && !run.isDone(); i++) {
            Thread.sleep(100);
        }
        assertThat(run.isDone()).as("serve ended early: %s", run.isDone() ? run.get() : null).isFalse();
        JsonNode config = JSON.readTree(clientJson.toFile());
        assertThat(config.get("server").asText()).startsWith("https://127.0.0.1:");
        assertThat(config.get("caCertificate").asText()).isEqualTo(pem[0].toAbsolutePath().toString());

        Cli.Result queue = Cli.run("queue");
        assertThat(queue.exit()).as(queue.err()).isZero();
        Cli.Result submit = Cli.run("submit", "--allocation", "lab/nlp/pretrain", "--gpus", "1", "--min-runtime",
                "0", "--duration", "1h", "--", "true");
        assertThat(submit.exit()).as(submit.err()).isZero();

        // Trusting another certificate, the client refuses the server and says why; a bad --ca-cert names itself
        String server = config.get("server").asText();
        Path[] other = selfSigned(dir.resolve("other"));
        Cli.Result untrusted = Cli.run("queue", "--server", server, "--ca-cert", other[0].toString());
        assertThat(untrusted.exit()).as(untrusted.err()).isEqualTo(1);
        assertThat(untrusted.err()).contains("over TLS", "--ca-cert").doesNotContain("\tat ");
        Cli.Result badCa = Cli.run("queue", "--server", server, "--ca-cert", pem[1].toString());
        assertThat(badCa.exit()).as(badCa.err()).isEqualTo(2);
        assertThat(badCa.err()).contains("--ca-cert", pem[1].toString()).doesNotContain("\tat ");
        Cli.Result plain = Cli.run("queue", "--server", server.replace("https:", "http:"));
        assertThat(plain.exit()).as(plain.err()).isEqualTo(1);
        assertThat(plain.err()).doesNotContain("\tat ");

        ServeCommand.stopAll();
        Cli.Result r = run.get(60, TimeUnit.SECONDS);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).contains("listening on https://127.0.0.1:").doesNotContain("WARNING");
    }

    @Test
    void badTlsFilesAndAddressesNameTheOptionAndFileAndCreateNothing() throws Exception {
        Path[] pem = selfSigned(dir.resolve("tls"));
        String d = dir.resolve("bad").toString();
        Path missing = dir.resolve("nope.pem");
        List<List<String>> cases = List.of(
                List.of("--tls-cert", missing.toString(), "--tls-key", pem[1].toString(),
                        "--tls-cert " + missing + ": no such file"),
                List.of("--tls-cert", pem[1].toString(), "--tls-key", pem[1].toString(),
                        "--tls-cert " + pem[1] + ": expected a PEM certificate"),
                List.of("--tls-cert", pem[0].toString(), "--tls-key", pem[0].toString(),
                        "--tls-key " + pem[0] + ": expected a PEM private key"),
                List.of("--tls-cert", pem[0].toString(), "--tls-cert needs --tls-key"),
                List.of("--tls-key", pem[1].toString(), "--tls-key needs --tls-cert"),
                List.of("--bind", "203.0.113.77", "--bind expects an address of this machine"),
                List.of("--bind", "no-such-host.invalid", "--bind expects an address of this machine"));
        for (List<String> c : cases) {
            List<String> args = new java.util.ArrayList<>(List.of("serve", "--data-dir", d, "--backend", "simulated"));
            args.addAll(c.subList(0, c.size() - 1));
            Cli.Result r = Cli.run(args.toArray(String[]::new));
            assertThat(r.exit()).as(c.toString()).isEqualTo(2);
            assertThat(r.err()).as(c.toString()).contains(c.get(c.size() - 1));
        }
        assertThat(Path.of(d)).doesNotExist();
    }

    /** A self-signed RSA certificate for 127.0.0.1 and its PKCS#8 key, as PEM files, by the JDK's keytool. */
    static Path[] selfSigned(Path dir) throws Exception {
        Files.createDirectories(dir);
        Path store = dir.resolve("server.p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-alias", "server", "-keyalg", "RSA", "-keysize", "2048", "-dname", "CN=localhost",
                "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore",
                store.toString(), "-storepass", "changeit", "-keypass", "changeit").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor()).as(out).isZero();
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(store)) {
            ks.load(in, "changeit".toCharArray());
        }
        Path cert = Files.writeString(dir.resolve("cert.pem"), pem("CERTIFICATE",
                ks.getCertificate("server").getEncoded()));
        Path key = Files.writeString(dir.resolve("key.pem"), pem("PRIVATE KEY",
                ks.getKey("server", "changeit".toCharArray()).getEncoded()));
        return new Path[]{cert, key};
    }

    private static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n" + Base64.getMimeEncoder(64, new byte[]{'\n'}).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }
}
