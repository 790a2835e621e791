package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The client's configuration file, {@code client.json} ({@code {"server": URL, "token": TOKEN, "caCertificate":
 * PEM_FILE}}, all optional),
 * read by the client commands after their flags and environment variables, and written by {@code allot serve}
 * (the server always, the token in demo mode only), readable by its owner only. Where it is: {@code $ALLOT_CONFIG}
 * when set, else {@code $XDG_CONFIG_HOME/allot/client.json}, else {@code $HOME/.config/allot/client.json} (none
 * without {@code HOME}).
 */
final class ClientConfig {
    static final String CONFIG_ENV = "ALLOT_CONFIG";
    static final String XDG_ENV = "XDG_CONFIG_HOME";
    private static final ObjectMapper JSON = new ObjectMapper();

    /** What the file says; either may be null. */
    record Values(String server, String token, String caCertificate) {
        static final Values NONE = new Values(null, null, null);
    }

    private ClientConfig() {
    }

    /** Where the file is, from the environment; null when it names none (no ALLOT_CONFIG, XDG_CONFIG_HOME, HOME). */
    static Path path(Function<String, String> env) {
        String explicit = env.apply(CONFIG_ENV);
        if (explicit != null && !explicit.isBlank()) {
            return Path.of(explicit.trim());
        }
        String xdg = env.apply(XDG_ENV);
        Path base;
        if (xdg != null && !xdg.isBlank()) {
            base = Path.of(xdg.trim());
        } else {
            String home = env.apply("HOME");
            if (home == null || home.isBlank()) {
                return null;
            }
            base = Path.of(home.trim(), ".config");
        }
        return base.resolve("allot").resolve("client.json");
    }

    private static final String EXAMPLE = "a JSON object such as {\"server\": \"http://127.0.0.1:8080\","
            + " \"token\": \"...\"}";
    /** It said "(ALLOT_CONFIG points elsewhere)", wrong when ALLOT_CONFIG pointed at this very file. */
    private static final String FIX = "fix or remove it, or set " + CONFIG_ENV + " to another file";

    /** The file's values; none when it does not exist. A file that is not a JSON object is refused (exit 2). */
    static Values read(Path file) {
        if (file == null) {
            return Values.NONE;
        }
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            return Values.NONE;
        } catch (IOException e) {
            // a folder, a binary file: the words every input file gets (it said 'Input length = 1')
            throw new IllegalArgumentException("the client configuration " + dev.allot.sim.input.TextFiles.readError(
                    file, file.toString(), e).getMessage() + "; " + FIX);
        }
        JsonNode root;
        try {
            root = JSON.readTree(text);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            // a file cut short said only "must be a JSON object": where, and why, in the scenario readers' words
            var at = e.getLocation() != null ? e.getLocation()
                    : dev.allot.sim.input.ParserMessages.locate(JSON.getFactory(), text);
            throw new IllegalArgumentException("the client configuration " + file
                    + (at == null ? "" : ":" + at.getLineNr() + ":" + at.getColumnNr()) + ": malformed JSON: "
                    + dev.allot.sim.input.ParserMessages.jsonSyntax(e.getOriginalMessage(), "the file").lines()
                    .findFirst().orElse("") + "; expected " + EXAMPLE + "; " + FIX);
        } catch (IOException e) {
            root = null;
        }
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException("the client configuration " + file + " must be " + EXAMPLE + "; "
                    + FIX);
        }
        return new Values(text(file, root, "server"), text(file, root, "token"), text(file, root, "caCertificate"));
    }

    /**
     * Sets the server, and the token when one is given (an existing token is kept otherwise), keeping any other
     * fields; written atomically, readable by its owner only (0600).
     */
    static void write(Path file, String server, String token) {
        write(file, server, token, null);
    }

    /**
     * As {@link #write(Path, String, String)}, and, when given, the PEM certificate the client trusts for an HTTPS
     * server ({@code caCertificate}; {@code allot serve --tls-cert} writes its own, so a self-signed one works).
     */
    static void write(Path file, String server, String token, String caCertificate) {
        write(file, server, token, caCertificate, false);
    }

    /**
     * As {@link #write(Path, String, String, String)}; with {@code dropOldToken} and no new token, the token the file
     * held is removed (it belongs to another server: {@code allot serve} checks it against its store).
     */
    static void write(Path file, String server, String token, String caCertificate, boolean dropOldToken) {
        ObjectNode root;
        try {
            JsonNode old = Files.exists(file) ? JSON.readTree(file.toFile()) : null;
            root = old != null && old.isObject() ? (ObjectNode) old : JSON.createObjectNode();
        } catch (IOException e) {
            root = JSON.createObjectNode();
        }
        root.put("server", server);
        if (caCertificate != null) {
            root.put("caCertificate", caCertificate);
        } else {
            root.remove("caCertificate");
        }
        if (token != null) {
            root.put("token", token);
        } else if (dropOldToken) {
            root.remove("token");
        }
        try {
            Path dir = file.toAbsolutePath().getParent();
            Files.createDirectories(dir);
            Path tmp = dir.resolve(file.getFileName() + ".tmp");
            Files.deleteIfExists(tmp);
            try {
                Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (UnsupportedOperationException e) {
                Files.createFile(tmp);
            }
            Files.writeString(tmp, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n");
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot write " + file + ": " + e.getMessage(), e);
        }
    }

    /**
     * A warning when the file exists and its group or others may read or write it (POSIX permissions; none where the
     * file system has none): it may hold the API token, and a file others may write can send the token to their
     * server. The client still reads it, as ssh's config, with the fix in the warning.
     */
    static Optional<String> exposure(Path file) {
        if (file == null) {
            return Optional.empty();
        }
        Set<PosixFilePermission> perms;
        try {
            perms = Files.getPosixFilePermissions(file);
        } catch (UnsupportedOperationException | IOException e) {
            return Optional.empty(); // no such file, or no POSIX permissions
        }
        List<String> open = new ArrayList<>();
        for (String who : List.of("GROUP", "OTHERS")) {
            List<String> may = new ArrayList<>();
            if (perms.contains(PosixFilePermission.valueOf(who + "_READ"))) {
                may.add("read");
            }
            if (perms.contains(PosixFilePermission.valueOf(who + "_WRITE"))) {
                may.add("write");
            }
            if (!may.isEmpty()) {
                open.add((who.equals("GROUP") ? "its group" : "others") + " may " + String.join(" and ", may) + " it");
            }
        }
        if (open.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("warning: the client configuration " + file + " has mode " + octal(perms) + ": "
                + String.join(", ", open) + ", and it may hold your API token; make it yours only: chmod 600 "
                + ShellWords.quote(file.toString()));
    }

    /** Permissions as ls and chmod write them in octal, e.g. 0644. */
    private static String octal(Set<PosixFilePermission> perms) {
        int mode = 0;
        for (PosixFilePermission p : perms) {
            mode |= 1 << (8 - p.ordinal()); // OWNER_READ is ordinal 0 and bit 8, ... OTHERS_EXECUTE ordinal 8, bit 0
        }
        return String.format("%04o", mode);
    }

    /**
     * A field's text; absent, null or blank: none. Any other value is refused naming the file and the field: a
     * {@code "server": 5} dropped in silence sent the commands to the default server, which said it could not be
     * reached.
     */
    private static String text(Path file, JsonNode root, String field) {
        JsonNode v = root.get(field);
        if (v == null || v.isNull()) {
            return null;
        }
        if (!v.isTextual()) {
            throw new IllegalArgumentException("the client configuration " + file + ": field '" + field + "': expected"
                    + " a string, e.g. " + EXAMPLES.get(field) + ", got " + v + "; fix or remove it");
        }
        return v.asText().isBlank() ? null : v.asText().trim();
    }

    private static final java.util.Map<String, String> EXAMPLES = java.util.Map.of(
            "server", "\"http://127.0.0.1:8080\"", "token", "\"allot_...\"",
            "caCertificate", "\"/etc/allot/ca.pem\"");
}
