package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The client's own files, the configuration ({@code ALLOT_CONFIG}) and {@code --ca-cert}, given a folder or a binary
 * file: refused in words naming the file, never in the JDK's ('Is a directory', 'Input length = 1',
 * 'java.io.IOException: Is a directory', 'No certificate data found').
 */
class ClientFilesTest {
    static final String CA = "--ca-cert (or ALLOT_CA_CERT, or the client configuration's \"caCertificate\") ";

    @TempDir
    Path tmp;

    @Test
    void aClientConfigurationThatIsAFolderOrBinaryIsRefusedInWords() throws IOException {
        Path folder = Files.createDirectories(tmp.resolve("client.json"));
        assertThatThrownBy(() -> ClientConfig.read(folder)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the client configuration " + folder + ": cannot read: is a directory; fix or remove it,"
                        + " or set ALLOT_CONFIG to another file");
        Path binary = Files.write(tmp.resolve("binary.json"), new byte[] {'{', (byte) 0xc3, '}'});
        assertThatThrownBy(() -> ClientConfig.read(binary)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("the client configuration " + binary + ":1:2: expected UTF-8 text")
                .hasMessageEndingWith("; fix or remove it, or set ALLOT_CONFIG to another file");
    }

    @Test
    void aClientConfigurationCutShortIsLocatedAndSaidInTheReadersWords() throws IOException {
        // it said "must be a JSON object such as {...}; fix or remove it (ALLOT_CONFIG points elsewhere)": no place,
        // no cause, and "points elsewhere" though ALLOT_CONFIG pointed at this very file
        Path cut = Files.writeString(tmp.resolve("client.json"), "{\"server\": \"http://127.0.0.1:7872\",\n"
                + "  \"token\": ");
        assertThatThrownBy(() -> ClientConfig.read(cut)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("the client configuration " + cut + ":2:12: malformed JSON: the file ends inside an object"
                        + " (truncated?); expected a JSON object such as {\"server\":"
                        + " \"http://127.0.0.1:8080\", \"token\": \"...\"}; fix or remove it, or set ALLOT_CONFIG to"
                        + " another file");
    }

    @Test
    void aCaCertificateThatIsAFolderOrNotACertificateIsRefusedInWords() throws IOException {
        Path folder = Files.createDirectories(tmp.resolve("ca.pem"));
        assertThatThrownBy(() -> ApiClient.trusting(folder)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(CA + folder + ": expected a PEM certificate file, got a folder");
        for (byte[] bytes : new byte[][] {{}, {(byte) 0x8f, 0, 1, 2}, "not: a certificate\n".getBytes()}) {
            Path file = Files.write(tmp.resolve("bad.pem"), bytes);
            assertThatThrownBy(() -> ApiClient.trusting(file)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage(CA + file + ": expected a PEM certificate file, got no certificate it can read (a PEM"
                            + " file holds -----BEGIN CERTIFICATE----- blocks)");
        }
    }
}
