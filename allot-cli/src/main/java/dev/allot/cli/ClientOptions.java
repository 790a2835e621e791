package dev.allot.cli;

import java.io.PrintWriter;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Function;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Where the Allot server is and who is asking: the {@code --server} and {@code --token} options shared by the client
 * commands ({@code submit}, {@code queue}, {@code show}, {@code cancel}, {@code nodes}, {@code budget show}), with
 * defaults from the environment variables {@code ALLOT_SERVER} and {@code ALLOT_TOKEN}, then from the client
 * configuration file ({@link ClientConfig}: {@code ~/.config/allot/client.json}, or {@code $ALLOT_CONFIG}), which
 * {@code allot serve} writes. The token is never printed. A configuration file its group or others may read or write
 * is warned about once on stderr, with the {@code chmod 600} that fixes it ({@link ClientConfig#exposure}).
 */
final class ClientOptions {
    static final String DEFAULT_SERVER = "http://127.0.0.1:8080";
    static final String SERVER_ENV = "ALLOT_SERVER";
    static final String TOKEN_ENV = "ALLOT_TOKEN";
    static final String CA_CERT_ENV = "ALLOT_CA_CERT";

    /** Where environment variables are read; a seam so tests need not touch the real environment. */
    static volatile Function<String, String> environment = System::getenv;

    @Option(names = "--server", paramLabel = "URL",
            description = "the Allot server (default: $" + SERVER_ENV + ", else the client configuration's, else "
                    + DEFAULT_SERVER + ")")
    String server;

    @Option(names = "--token", paramLabel = "TOKEN",
            description = "the API token (default: $" + TOKEN_ENV + ", else the client configuration's); never printed")
    String token;

    @Option(names = "--ca-cert", paramLabel = "FILE",
            description = "for an https server: trust the PEM certificate(s) in FILE (default: $" + CA_CERT_ENV
                    + ", else the client configuration's, else the JDK's trusted authorities)")
    Path caCert;

    /** The command these options belong to, for its stderr; null when built directly. */
    @Spec(Spec.Target.MIXEE)
    CommandSpec command;

    /** The configuration files whose permissions were checked: a command warns once, not at each value it reads. */
    private final java.util.Set<Path> checked = new java.util.HashSet<>();

    /** Replaces where environment variables are read and returns what was there, for tests. */
    static Function<String, String> useEnvironment(Map<String, String> variables) {
        Function<String, String> previous = environment;
        environment = variables::get;
        return previous;
    }

    /** The server's base URL, without a trailing slash. */
    URI serverUri() {
        String text = server;
        if (text == null || text.isBlank()) {
            text = environment.apply(SERVER_ENV);
        }
        if (text == null || text.isBlank()) {
            text = config().server();
        }
        if (text == null || text.isBlank()) {
            text = DEFAULT_SERVER;
        }
        text = text.trim();
        while (text.endsWith("/")) {
            text = text.substring(0, text.length() - 1);
        }
        URI uri;
        try {
            uri = new URI(text);
        } catch (URISyntaxException e) {
            throw badServer(text);
        }
        if (uri.getScheme() == null || !(uri.getScheme().equalsIgnoreCase("http") || uri.getScheme().equalsIgnoreCase("https"))
                || uri.getHost() == null || uri.getRawQuery() != null || uri.getRawFragment() != null) {
            throw badServer(text);
        }
        String path = uri.getPath() == null ? "" : uri.getPath().toLowerCase(java.util.Locale.ROOT);
        if (path.endsWith("/v1") || path.contains("/v1/")) {
            // the commands add /v1/...: it said "no such endpoint: GET /v1/v1/workloads" and blamed the versions
            throw new IllegalArgumentException("--server (or " + SERVER_ENV + ", or the client configuration's"
                    + " \"server\") is the service's address without the API's /v1 (the commands add it), such as "
                    + DEFAULT_SERVER + ", got '" + text + "'");
        }
        return uri;
    }

    /**
     * The token; refuses (exit 2) when none is given, or when it holds a blank or a control character (a line break
     * of a pasted or concatenated file): that is no token, and the HTTP client's refusal printed the header, token
     * and all ('invalid header value: "Bearer allot_...'). The token itself is never in the message.
     */
    String requireToken() {
        String t = token;
        String from = "--token";
        if (t == null || t.isBlank()) {
            t = environment.apply(TOKEN_ENV);
            from = TOKEN_ENV;
        }
        if (t == null || t.isBlank()) {
            t = config().token();
            from = "\"token\" in " + configName();
        }
        if (t == null || t.isBlank()) {
            throw new IllegalArgumentException("no API token: give --token TOKEN, set " + TOKEN_ENV + ", or put \"token\" in "
                    + configName() + " (allot serve --demo writes it; a service's first administrator token is"
                    + " in its data directory: " + TOKEN_ENV + "=$(cat allot-data/admin-token), or the --data-dir"
                    + " it was given)");
        }
        String trimmed = t.trim();
        if (!trimmed.chars().allMatch(c -> c > ' ' && c < 0x7f)) {
            throw new IllegalArgumentException("the API token of " + from + " holds a blank, a line break or another"
                    + " character no token has (a token is one word of printable ASCII, e.g. allot_...); give it"
                    + " alone, as 'allot token create' printed it");
        }
        return trimmed;
    }

    private static String configName() {
        Path p = ClientConfig.path(environment);
        return p == null ? "the client configuration ($" + ClientConfig.CONFIG_ENV + ")" : p.toString();
    }

    private ClientConfig.Values config() {
        Path file = ClientConfig.path(environment);
        if (file != null && checked.add(file)) {
            ClientConfig.exposure(file).ifPresent(warning -> {
                PrintWriter err = command != null ? command.commandLine().getErr()
                        : new PrintWriter(System.err, true);
                err.println("allot: " + warning);
                err.flush();
            });
        }
        return ClientConfig.read(file);
    }

    ApiClient client() {
        return new ApiClient(serverUri(), requireToken(), caCertificate());
    }

    /** The PEM file of certificates to trust for HTTPS: flag, environment, configuration; null for the JDK's. */
    Path caCertificate() {
        if (caCert != null) {
            return caCert;
        }
        String env = environment.apply(CA_CERT_ENV);
        if (env != null && !env.isBlank()) {
            return Path.of(env.trim());
        }
        String configured = config().caCertificate();
        return configured == null ? null : Path.of(configured);
    }

    private static IllegalArgumentException badServer(String text) {
        return new IllegalArgumentException("--server (or " + SERVER_ENV + ", or the client configuration's \"server\") expects a URL such as " + DEFAULT_SERVER
                + ", got '" + text + "'");
    }
}
