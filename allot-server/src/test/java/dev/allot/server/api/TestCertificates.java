package dev.allot.server.api;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Key;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Self-signed certificates for tests, for {@code localhost} and {@code 127.0.0.1}: made by the JDK's own
 * {@code keytool} (always there), written as the PEM files an operator has (certificate; PKCS#8 key), or by
 * {@code openssl} when it is installed (an independent PEM writer).
 */
public final class TestCertificates {
    /** The two PEM files. */
    public record Pem(Path certificate, Path key) {
    }

    private TestCertificates() {
    }

    /** A self-signed certificate and its key ({@code RSA} or {@code EC}), by keytool. */
    public static Pem keytool(Path dir, String algorithm) {
        try {
            Files.createDirectories(dir);
            Path store = dir.resolve(algorithm + ".p12");
            Files.deleteIfExists(store);
            String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
            List<String> cmd = new java.util.ArrayList<>(List.of(keytool, "-genkeypair", "-alias", "server",
                    "-keyalg", algorithm, "-dname", "CN=localhost", "-ext", "SAN=ip:127.0.0.1,dns:localhost",
                    "-validity", "2", "-storetype", "PKCS12", "-keystore", store.toString(), "-storepass", "changeit",
                    "-keypass", "changeit"));
            cmd.addAll(algorithm.equals("EC") ? List.of("-groupname", "secp256r1") : List.of("-keysize", "2048"));
            run(cmd);
            KeyStore ks = KeyStore.getInstance("PKCS12");
            try (InputStream in = Files.newInputStream(store)) {
                ks.load(in, "changeit".toCharArray());
            }
            Key key = ks.getKey("server", "changeit".toCharArray());
            Certificate cert = ks.getCertificate("server");
            Pem pem = new Pem(dir.resolve(algorithm + "-cert.pem"), dir.resolve(algorithm + "-key.pem"));
            Files.writeString(pem.certificate(), pem("CERTIFICATE", cert.getEncoded()));
            Files.writeString(pem.key(), pem("PRIVATE KEY", key.getEncoded()));
            return pem;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** A self-signed RSA certificate and its PKCS#8 key by openssl, or null when openssl is not installed. */
    public static Pem openssl(Path dir) {
        try {
            Files.createDirectories(dir);
            Pem pem = new Pem(dir.resolve("openssl-cert.pem"), dir.resolve("openssl-key.pem"));
            run(List.of("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", pem.key().toString(),
                    "-out", pem.certificate().toString(), "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"));
            return pem;
        } catch (IOException e) {
            return null; // no openssl here
        }
    }

    static String pem(String type, byte[] der) {
        return "-----BEGIN " + type + "-----\n"
                + Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII)).encodeToString(der)
                + "\n-----END " + type + "-----\n";
    }

    private static void run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", cmd.subList(0, 2)) + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
