package dev.allot.server.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.server.api.HttpEndpoint;
import dev.allot.server.api.PemKeyStore;
import dev.allot.server.api.TestCertificates;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Where the service listens and how: loopback by default, HTTPS from PEM files, and clear refusals of bad ones. */
class TlsAndBindTest {
    @TempDir
    Path dir;

    /**
     * The certificates the stories read, made once for the class: each costs a {@code keytool} JVM or an
     * {@code openssl} run (a 2048-bit RSA key) of a second or more, and no story writes to them.
     */
    @TempDir
    static Path certificates;
    static TestCertificates.Pem rsa;
    static TestCertificates.Pem ec;
    /** By openssl; null when it is not installed. */
    static TestCertificates.Pem openssl;

    @BeforeAll
    static void makeCertificates() {
        rsa = TestCertificates.keytool(certificates.resolve("rsa"), "RSA");
        ec = TestCertificates.keytool(certificates.resolve("ec"), "EC");
        openssl = TestCertificates.openssl(certificates.resolve("openssl"));
    }

    ServiceConfig config(ServiceConfig.Security security) {
        return ServiceConfig.defaults(dir.resolve("data")).withPort(0).withBackend(ServiceConfig.SIMULATED)
                .withSecurity(security);
    }

    @Test
    void givenNoBindAddressThenTheServiceListensOnLoopbackOnlyOverPlainHttp() throws Exception {
        try (Service s = Service.start(config(ServiceConfig.Security.defaults()), Clock.systemUTC())) {
            InetSocketAddress bound = (InetSocketAddress) s.apiAddress();
            assertThat(bound.getAddress().isLoopbackAddress()).as("bound to %s", bound).isTrue();
            assertThat(bound.getAddress().getHostAddress()).isEqualTo("127.0.0.1");
            assertThat(s.url()).isEqualTo("http://127.0.0.1:" + bound.getPort());
            assertThat(s.plainTextWarning()).isEmpty();
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create(s.url() + "/v1/health")).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
        }
    }

    @Test
    void givenANonLoopbackAddressWithoutTlsThenItWarnsThatTokensCrossTheNetworkInTheClear() {
        HttpEndpoint exposed = new HttpEndpoint("0.0.0.0", 0, null, HttpEndpoint.Limits.defaults());
        assertThat(exposed.plainTextWarning()).hasValueSatisfying(w -> assertThat(w)
                .contains("0.0.0.0", "plain HTTP", "--tls-cert"));
        assertThat(HttpEndpoint.loopback(0).plainTextWarning()).isEmpty();
        assertThat(new HttpEndpoint("::1", 0, null, HttpEndpoint.Limits.defaults()).plainTextWarning()).isEmpty();
    }

    @Test
    void givenPemFilesThenTheServiceAnswersHealthOverTlsAndPlainHttpToItFails() throws Exception {
        List<TestCertificates.Pem> pems = new ArrayList<>(List.of(rsa, ec));
        if (openssl != null) {
            pems.add(openssl);
        }
        for (TestCertificates.Pem pem : pems) {
            ServiceConfig.Security tls = new ServiceConfig.Security("127.0.0.1", pem.certificate(), pem.key(), null,
                    false, false);
            try (Service s = Service.start(config(tls), Clock.systemUTC())) {
                int port = ((InetSocketAddress) s.apiAddress()).getPort();
                assertThat(s.url()).isEqualTo("https://127.0.0.1:" + port);
                HttpClient trusting = HttpClient.newBuilder().sslContext(trusting(pem.certificate()))
                        .connectTimeout(Duration.ofSeconds(5)).build();
                HttpResponse<String> r = trusting.send(HttpRequest.newBuilder(URI.create(s.url() + "/v1/health"))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                assertThat(r.statusCode()).as(pem.key().getFileName().toString()).isEqualTo(200);
                assertThat(r.body()).contains("\"status\"");
                assertThat(r.sslSession()).isPresent();

                // Plain HTTP to the TLS port gets no answer from the API
                HttpClient plain = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(5)).build();
                int status;
                try {
                    status = plain.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/health"))
                            .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
                } catch (IOException refused) {
                    status = -1;
                }
                assertThat(status).as("plain HTTP to the HTTPS port").isNotEqualTo(200);
                // and a client that does not trust the certificate refuses the server
                assertThatThrownBy(() -> HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create(s.url() + "/v1/health")).timeout(Duration.ofSeconds(10)).build(),
                        HttpResponse.BodyHandlers.ofString())).isInstanceOf(IOException.class);
            }
        }
    }

    @Test
    void givenBadPemFilesThenStartRefusesNamingTheFileBeforeCreatingAnything() throws Exception {
        Path notPem = Files.writeString(dir.resolve("notes.txt"), "hello\n");
        Path missing = dir.resolve("missing.pem");
        Path encrypted = Files.writeString(dir.resolve("enc.pem"),
                "-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----\n");
        Object[][] cases = {
            {missing, rsa.key(), PemKeyStore.Part.CERTIFICATE, "no such file"},
            {notPem, rsa.key(), PemKeyStore.Part.CERTIFICATE, "expected a PEM certificate"},
            {rsa.key(), rsa.key(), PemKeyStore.Part.CERTIFICATE, "expected a PEM certificate"},
            {rsa.certificate(), missing, PemKeyStore.Part.KEY, "no such file"},
            {rsa.certificate(), rsa.certificate(), PemKeyStore.Part.KEY, "expected a PEM private key"},
            {rsa.certificate(), encrypted, PemKeyStore.Part.KEY, "encrypted"},
            {rsa.certificate(), ec.key(), PemKeyStore.Part.KEY, "does not belong to the certificate"},
            {ec.certificate(), rsa.key(), PemKeyStore.Part.KEY, "does not belong to the certificate"},
        };
        for (Object[] c : cases) {
            Path cert = (Path) c[0];
            Path key = (Path) c[1];
            assertThatThrownBy(() -> PemKeyStore.load(cert, key)).as(cert + " " + key)
                    .isInstanceOfSatisfying(PemKeyStore.BadPem.class, e -> {
                        assertThat(e.part()).isEqualTo(c[2]);
                        assertThat(e.getMessage()).contains(e.file().toString(), (String) c[3]);
                    });
            ServiceConfig.Security tls = new ServiceConfig.Security("127.0.0.1", cert, key, null, false, false);
            assertThatThrownBy(() -> Service.start(config(tls), Clock.systemUTC()))
                    .isInstanceOf(PemKeyStore.BadPem.class);
            assertThat(dir.resolve("data")).as("nothing created").doesNotExist();
        }
    }

    @Test
    void aPkcs1RsaKeyIsReadToo() throws Exception {
        if (openssl == null) {
            return; // PKCS#1 is written by openssl only
        }
        Path pkcs1 = dir.resolve("pkcs1.pem");
        Process p = new ProcessBuilder("openssl", "rsa", "-in", openssl.key().toString(), "-traditional", "-out",
                pkcs1.toString()).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        assertThat(p.waitFor()).isZero();
        assertThat(Files.readString(pkcs1)).contains("BEGIN RSA PRIVATE KEY");
        KeyStore ks = PemKeyStore.load(openssl.certificate(), pkcs1);
        assertThat(ks.size()).isEqualTo(1);
        assertThatThrownBy(() -> PemKeyStore.load(rsa.certificate(), pkcs1)).hasMessageContaining("does not belong");
    }

    static SSLContext trusting(Path pem) throws Exception {
        KeyStore trust = KeyStore.getInstance("PKCS12");
        trust.load(null, null);
        try (InputStream in = Files.newInputStream(pem)) {
            int i = 0;
            for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
                trust.setCertificateEntry("c" + i++, c);
            }
        }
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(trust);
        SSLContext ssl = SSLContext.getInstance("TLS");
        ssl.init(null, tmf.getTrustManagers(), null);
        return ssl;
    }
}
