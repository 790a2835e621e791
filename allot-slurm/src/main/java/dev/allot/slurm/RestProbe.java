package dev.allot.slurm;

import dev.allot.core.backend.BackendUnavailableException;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * Observes Slurm through slurmrestd ({@code /slurm/v0.0.38/}): {@code GET jobs}, {@code GET job/{id}} and
 * {@code GET nodes}, authenticated by a JWT from {@code scontrol token} read from a file at each request. A refused
 * connection, a timeout, an HTTP error, or a body that does not parse is unknown. slurmrestd 22.05 answers an unknown
 * job id with the same HTTP 500 as any failure, so a lookup it cannot answer goes to the commands
 * ({@code scontrol show job}), whose "Invalid job id" is certain.
 */
final class RestProbe implements SlurmProbe {
    static final String API = "/slurm/v0.0.38/";

    private final HttpClient http;
    private final String base;
    private final String user;
    private final Path tokenFile;
    private final Duration timeout;

    /** Asked for one job when slurmrestd cannot tell "no such job" from a failure (22.05 answers 500 to both). */
    private final SlurmProbe lookups;

    RestProbe(SlurmConfig config) {
        this(config, null);
    }

    RestProbe(SlurmConfig config, SlurmProbe lookups) {
        this.lookups = lookups;
        this.base = config.restUrl().endsWith("/") ? config.restUrl().substring(0, config.restUrl().length() - 1)
                : config.restUrl();
        this.user = config.restUser();
        this.tokenFile = config.restTokenFile();
        this.timeout = config.commandTimeout();
        this.http = HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build();
    }

    @Override
    public String name() {
        return "slurmrestd";
    }

    @Override
    public List<SlurmJob> jobs() {
        Response r = get("jobs");
        if (r.status() != 200) {
            throw new BackendUnavailableException(refused("jobs", r));
        }
        try {
            return SlurmJson.jobs("slurmrestd GET jobs", r.body());
        } catch (SlurmJson.Malformed e) {
            throw new BackendUnavailableException(e.getMessage());
        }
    }

    @Override
    public Optional<SlurmJob> job(long id) {
        Response r = get("job/" + id);
        if (r.body().contains("Invalid job id specified") && (r.status() == 200 || r.status() >= 400)
                && r.body().contains("\"errors\"")) {
            return Optional.empty();
        }
        if (r.status() != 200) {
            if (lookups != null) {
                return lookups.job(id); // the commands say "Invalid job id" for certain, or fail
            }
            throw new BackendUnavailableException(refused("job/" + id, r));
        }
        try {
            for (SlurmJob j : SlurmJson.jobs("slurmrestd GET job/" + id, r.body())) {
                if (j.id() == id) {
                    return Optional.of(j);
                }
            }
        } catch (SlurmJson.Malformed e) {
            throw new BackendUnavailableException(e.getMessage());
        }
        throw new BackendUnavailableException("slurmrestd GET job/" + id + " answered without that job");
    }

    @Override
    public List<SlurmNode> nodes() {
        Response r = get("nodes");
        if (r.status() != 200) {
            throw new BackendUnavailableException(refused("nodes", r));
        }
        try {
            return SlurmJson.nodes("slurmrestd GET nodes", r.body());
        } catch (SlurmJson.Malformed e) {
            throw new BackendUnavailableException(e.getMessage());
        }
    }

    private record Response(int status, String body) {
    }

    private Response get(String path) {
        String token;
        try {
            token = Files.readString(tokenFile, StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new BackendUnavailableException("could not read the slurmrestd token from " + tokenFile + ": "
                    + e.getMessage(), e);
        }
        if (token.startsWith("SLURM_JWT=")) {
            token = token.substring("SLURM_JWT=".length());
        }
        HttpRequest req = HttpRequest.newBuilder(URI.create(base + API + path)).timeout(timeout)
                .header("X-SLURM-USER-NAME", user).header("X-SLURM-USER-TOKEN", token).GET().build();
        try {
            HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
            return new Response(res.statusCode(), res.body());
        } catch (IOException e) {
            throw new BackendUnavailableException("slurmrestd GET " + path + " failed: " + why(e), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendUnavailableException("interrupted asking slurmrestd for " + path, e);
        }
    }

    /**
     * Why a request got no answer, in words that point at the option to check: the JDK's exceptions often carry no
     * message ({@code java.net.ConnectException} alone was all the log said of a URL where nothing listened).
     */
    private String why(IOException e) {
        if (e instanceof java.net.http.HttpTimeoutException) {
            return "no answer from " + base + " within " + timeout.toMillis() + " ms (--slurm-timeout)";
        }
        if (e instanceof java.net.ConnectException) {
            return "could not connect to " + base + " (connection refused: is slurmrestd running there?"
                    + " --slurm-rest-url)";
        }
        String m = e.getMessage();
        return e.getClass().getSimpleName() + (m == null || m.isBlank() ? "" : ": " + m) + " (" + base
                + ", --slurm-rest-url)";
    }

    /**
     * What slurmrestd said when it did not answer a request: its status and the errors it listed (Slurm's JSON
     * {@code errors[].description}/{@code error}), not its whole answer (a 440-character line of JSON), and where the
     * credentials come from, as an unaccepted token is the usual reason (slurmrestd answers 401, 403 or 500 to it).
     */
    private String refused(String path, Response r) {
        List<String> said = new java.util.ArrayList<>();
        try {
            com.fasterxml.jackson.databind.JsonNode errors = new com.fasterxml.jackson.databind.ObjectMapper()
                    .readTree(r.body()).path("errors");
            for (com.fasterxml.jackson.databind.JsonNode e : errors) {
                String d = e.path("description").asText("");
                String w = d.isBlank() ? e.path("error").asText("") : d;
                if (!w.isBlank() && !said.contains(w.strip())) {
                    said.add(w.strip());
                }
            }
        } catch (IOException | RuntimeException e) {
            // not JSON: its text is quoted below
        }
        String what = said.isEmpty() ? abbreviate(r.body()) : String.join("; ", said);
        return "slurmrestd answered GET " + path + " with HTTP " + r.status() + (what.isEmpty() ? "" : ": " + what)
                + " (it was asked as user '" + user + "' with the token in " + tokenFile + ")"
                + (r.status() == 401 || r.status() == 403 || r.status() == 500 ? tokenHint() : "");
    }

    /**
     * What to do when the token is the cause. slurmrestd 22.05 answers a token slurmctld rejects (wrong, expired,
     * made with another key) with HTTP 500 and "Unspecified error", like a failure of slurmctld: seen on the loopback
     * cluster, where only slurmctld's log said {@code jwt_decode failure}. So the answer cannot say which; the hint
     * says how to rule the token out.
     */
    private String tokenHint() {
        return "; if the token is wrong or has expired (slurmctld's log then says jwt_decode failure or expired),"
                + " write a fresh one with `scontrol token username=" + user + " lifespan=SECONDS` to " + tokenFile
                + " (--slurm-rest-token-file; read at every request)";
    }

    private static String abbreviate(String s) {
        String t = s == null ? "" : s.strip().replaceAll("\\s+", " ");
        return t.length() > 300 ? t.substring(0, 300) + "..." : t;
    }
}
