package dev.allot.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * A small client of the Allot REST API (v1) over {@code java.net.http} and Jackson: every call answers the parsed
 * JSON of a 2xx answer or throws a {@link ClientException} with the exit code and the message the command prints.
 * It knows the wire format only, not the server's classes.
 */
final class ApiClient {
    static final ObjectMapper JSON = new ObjectMapper();
    static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(10);
    static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(60);

    private final URI base;
    private final String token;
    private final HttpClient http;
    private boolean lastReplayed;

    ApiClient(URI base, String token) {
        this(base, token, null);
    }

    /** A client that, for an https server, trusts the PEM certificates in {@code caCertificate} (null: the JDK's). */
    ApiClient(URI base, String token, java.nio.file.Path caCertificate) {
        this.base = Objects.requireNonNull(base, "base");
        this.token = Objects.requireNonNull(token, "token");
        HttpClient.Builder b = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT);
        if (caCertificate != null) {
            b.sslContext(trusting(caCertificate));
        }
        this.http = b.build();
    }

    /** An SSL context trusting exactly the certificates of a PEM file; a bad file is the caller's fault (exit 2). */
    static javax.net.ssl.SSLContext trusting(java.nio.file.Path pem) {
        try (java.io.InputStream in = java.nio.file.Files.newInputStream(pem)) {
            java.security.KeyStore trust = java.security.KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            int n = 0;
            for (java.security.cert.Certificate c : java.security.cert.CertificateFactory.getInstance("X.509")
                    .generateCertificates(in)) {
                trust.setCertificateEntry("ca-" + n++, c);
            }
            if (n == 0) {
                throw new java.security.cert.CertificateException("no certificate in it");
            }
            javax.net.ssl.TrustManagerFactory tmf = javax.net.ssl.TrustManagerFactory.getInstance(
                    javax.net.ssl.TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(trust);
            javax.net.ssl.SSLContext ssl = javax.net.ssl.SSLContext.getInstance("TLS");
            ssl.init(null, tmf.getTrustManagers(), null);
            return ssl;
        } catch (IOException | java.security.GeneralSecurityException e) {
            // in words, not the JDK's: a folder said 'java.io.IOException: Is a directory', a file of anything but
            // certificates 'No certificate data found'
            String why;
            if (e instanceof java.nio.file.NoSuchFileException) {
                why = "no such file";
            } else if (java.nio.file.Files.isDirectory(pem)) {
                why = "got a folder";
            } else if (e instanceof java.security.cert.CertificateException) {
                why = "got no certificate it can read (a PEM file holds -----BEGIN CERTIFICATE----- blocks)";
            } else {
                why = e.getMessage();
            }
            throw new IllegalArgumentException("--ca-cert (or " + ClientOptions.CA_CERT_ENV
                    + ", or the client configuration's \"caCertificate\") " + pem + ": expected a PEM certificate file, "
                    + why);
        }
    }

    /**
     * A failed call: what to print after {@code allot: } and the exit code (2 for the caller's fault, else 1). An
     * error answer of the server keeps its parts (error, field, hint) so that the command can say them in its own
     * words ({@link CliHints}); its message is the server's words.
     */
    static final class ClientException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int exitCode;
        private final String error;
        private final String field;
        private final String hint;

        ClientException(int exitCode, String message) {
            super(message);
            this.exitCode = exitCode;
            this.error = null;
            this.field = null;
            this.hint = null;
        }

        /** The server's error answer {@code {"error", "field", "hint"}}. */
        ClientException(int exitCode, String error, String field, String hint) {
            super(serverWords(error, field, hint));
            this.exitCode = exitCode;
            this.error = error;
            this.field = field;
            this.hint = hint;
        }

        int exitCode() {
            return exitCode;
        }

        /** The server's error, or null when the failure is not an error answer of the server. */
        String error() {
            return error;
        }

        String field() {
            return field;
        }

        String hint() {
            return hint;
        }

        private static String serverWords(String error, String field, String hint) {
            StringBuilder m = new StringBuilder(error);
            if (field != null || hint != null) {
                m.append(" (");
                if (field != null) {
                    m.append("field: ").append(field);
                }
                if (hint != null) {
                    m.append(field != null ? "; " : "").append("hint: ").append(hint);
                }
                m.append(')');
            }
            return m.toString();
        }
    }

    JsonNode get(String path, Map<String, String> query) {
        StringJoiner q = new StringJoiner("&", "?", "");
        q.setEmptyValue("");
        query.forEach((k, v) -> {
            if (v != null) {
                q.add(encode(k) + "=" + encode(v));
            }
        });
        return send("GET", path + q, null);
    }

    JsonNode get(String path) {
        return send("GET", path, null);
    }

    JsonNode post(String path, JsonNode body) {
        return send("POST", path, body);
    }

    JsonNode put(String path, JsonNode body) {
        return send("PUT", path, body);
    }

    /**
     * A PUT whose body is text rather than JSON (PUT /v1/policy takes policy.yaml as it is), sent as UTF-8 with
     * {@code contentType}.
     */
    JsonNode putText(String path, String body, String contentType) {
        return send("PUT", path, body.getBytes(StandardCharsets.UTF_8), contentType);
    }

    /** A DELETE; its 204 (no content) is answered as an empty object. */
    JsonNode delete(String path) {
        return send("DELETE", path, null);
    }

    /**
     * A path segment, percent-encoded (an id the user typed must not change the path), for {@code what} the user
     * named ("a workload id"). What no server path may hold (empty, {@code .}, {@code ..}, a {@code /} or a
     * {@code \\}: the server refuses such a path before reading it, in words about URLs) is refused here in the
     * words of the command line, naming what was expected; an empty id would otherwise name the collection.
     */
    static String segment(String what, String s) {
        if (s.isEmpty()) {
            throw new ClientException(AllotCommand.EXIT_BAD_INPUT, "expected " + what + ", got an empty text");
        }
        if (s.equals(".") || s.equals("..")) {
            throw new ClientException(AllotCommand.EXIT_BAD_INPUT, "expected " + what + ", got '" + s
                    + "' (no name is '.' or '..')");
        }
        if (s.indexOf('/') >= 0 || s.indexOf('\\') >= 0) {
            throw new ClientException(AllotCommand.EXIT_BAD_INPUT, "expected " + what + " without '/' or '\\', got '"
                    + s + "'");
        }
        return encode(s).replace("+", "%20");
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private JsonNode send(String method, String path, JsonNode body) {
        if (body == null) {
            return send(method, path, null, null);
        }
        try {
            return send(method, path, JSON.writeValueAsBytes(body), "application/json");
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("could not write the request as JSON", e);
        }
    }

    private JsonNode send(String method, String path, byte[] bytes, String contentType) {
        URI uri = URI.create(base + path);
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(REQUEST_TIMEOUT)
                .header("Accept", "application/json")
                .header("Authorization", "Bearer " + token);
        if (bytes != null) {
            b.header("Content-Type", contentType).method(method, HttpRequest.BodyPublishers.ofByteArray(bytes));
        } else {
            b.method(method, HttpRequest.BodyPublishers.noBody());
        }
        HttpResponse<String> response;
        try {
            response = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpConnectTimeoutException | ConnectException e) {
            throw unreachable();
        } catch (HttpTimeoutException e) {
            throw new ClientException(1, "the Allot server at " + base + " did not answer " + method + " " + pathOnly(path)
                    + " within " + REQUEST_TIMEOUT.toSeconds() + "s");
        } catch (IOException e) {
            if (e.getCause() instanceof ConnectException) {
                throw unreachable();
            }
            if (e instanceof javax.net.ssl.SSLException) {
                // JSSE's words for a server that answered in plain HTTP: the certificate is not the question then
                boolean plain = e.getMessage() != null && e.getMessage().contains("plaintext connection");
                throw new ClientException(1, "cannot talk to the Allot server at " + base + " over TLS: " + e.getMessage()
                        + (plain ? " (it answers plain HTTP: give --server http://" + base.getRawAuthority() + ")"
                        : base.getScheme().equalsIgnoreCase("https") ? " (is its certificate trusted? --ca-cert FILE)"
                        : ""));
            }
            throw new ClientException(1, "cannot talk to the Allot server at " + base + ": " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ClientException(1, "interrupted while waiting for the Allot server at " + base);
        }
        return answer(response, method, path);
    }

    private ClientException unreachable() {
        return new ClientException(1, "cannot reach the Allot server at " + base
                + " (is `allot serve` running? set --server or ALLOT_SERVER)");
    }

    /** Whether the last answer was to a retried submission: the server stored nothing new (its header says so). */
    boolean lastAnswerReplayed() {
        return lastReplayed;
    }

    private JsonNode answer(HttpResponse<String> response, String method, String path) {
        int status = response.statusCode();
        lastReplayed = response.headers().firstValue("Idempotent-Replayed").map("true"::equalsIgnoreCase)
                .orElse(false);
        JsonNode json = null;
        String text = response.body() == null ? "" : response.body();
        if (!text.isBlank()) {
            try {
                json = JSON.readTree(text);
            } catch (JsonProcessingException e) {
                json = null;
            }
        }
        if (status == 204) {
            return JSON.createObjectNode();
        }
        if (status >= 200 && status < 300) {
            if (json == null) {
                throw new ClientException(1, "the server answered " + method + " " + pathOnly(path) + " with HTTP " + status
                        + " but no JSON" + notAllot());
            }
            return json;
        }
        int exit = status >= 400 && status < 500 ? AllotCommand.EXIT_BAD_INPUT : 1;
        if (json != null && json.isObject() && json.hasNonNull("error")) {
            throw new ClientException(exit, json.get("error").asText(), textOrNull(json, "field"),
                    textOrNull(json, "hint"));
        }
        String snippet = text.strip();
        int nl = snippet.indexOf('\n');
        snippet = nl < 0 ? snippet : snippet.substring(0, nl);
        if (snippet.length() > 200) {
            snippet = snippet.substring(0, 200) + "...";
        }
        return throwIt(exit, "the server answered " + method + " " + pathOnly(path) + " with HTTP " + status
                + (snippet.isEmpty() ? "" : ": " + snippet) + notAllot());
    }

    /**
     * The hint for an answer that is not the API's JSON: every answer of an Allot service is (its errors included),
     * so the address most likely names another server (a port of something else, a proxy's page).
     */
    private String notAllot() {
        return " (not the Allot API's JSON: is " + base + " an Allot service? set --server or ALLOT_SERVER)";
    }

    private static JsonNode throwIt(int exit, String message) {
        throw new ClientException(exit, message);
    }

    private static String pathOnly(String path) {
        int q = path.indexOf('?');
        return q < 0 ? path : path.substring(0, q);
    }

    static String textOrNull(JsonNode node, String field) {
        JsonNode v = node.get(field);
        return v == null || v.isNull() ? null : v.asText();
    }
}
