package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code allot token list|create|revoke|policy}: one's API tokens (administrators: anyone's with {@code --user}), with
 * when each expires, and the policy that says how long they live. A token made here is minted with the token the
 * command runs with: it never outlives it and is revoked with it.
 */
@Command(name = "token", mixinStandardHelpOptions = true,
        header = "API tokens on the Allot server and when they expire.",
        description = "A token made with a token never outlives it, and revoking a token revokes every token made with it.",
        subcommands = {TokenCommand.ListTokens.class, TokenCommand.Create.class, TokenCommand.Revoke.class,
                TokenCommand.Policy.class})
final class TokenCommand extends GroupCommand {
    TokenCommand() {
        super("list");
    }

    /** The user named by {@code --user}, or the one the token signs in. */
    static String owner(ApiClient client, String user) {
        return user != null ? user : client.get("/v1/me").path("name").asText();
    }

    static String tokensPath(String user) {
        return "/v1/users/" + ApiClient.segment("a user name", user) + "/tokens";
    }

    /** {@code allot token list}: the tokens, with their expiry. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List your tokens (or --user's: administrators) with when each expires; never the tokens.")
    static final class ListTokens extends ClientCommand {
        @Option(names = "--user", paramLabel = "NAME", description = "whose tokens (default: yours)")
        String user;

        @Override
        JsonNode call(ApiClient client) {
            return client.get(tokensPath(owner(client, user)));
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode t : answer.path("tokens")) {
                rows.add(List.of(t.path("id").asText(), text(t, "label"), text(t, "createdAt"), text(t, "expiresAt"),
                        t.path("expired").asBoolean() ? "expired" : "valid",
                        t.hasNonNull("mintedBy") ? t.path("mintedBy").asText().substring(0, 12) : "-"));
            }
            if (rows.isEmpty()) {
                out.println("no tokens");
                return;
            }
            table(out, List.of("ID", "LABEL", "CREATED", "EXPIRES", "STATUS", "MINTED BY"), rows);
        }
    }

    /** {@code allot token create}: a new token, shown once, with its expiry. */
    @Command(name = "create", mixinStandardHelpOptions = true,
            header = "Make a new token (for --user: administrators); it is shown once.",
            description = {"It lives the policy's default lifetime or --lifetime (up to the policy's maximum), and"
                            + " never past the token you run with."})
    static final class Create extends ClientCommand {
        @Option(names = "--user", paramLabel = "NAME", description = "for whom (default: you)")
        String user;

        @Option(names = "--label", paramLabel = "TEXT", description = "what it is for, e.g. laptop")
        String label;

        @Option(names = "--lifetime", paramLabel = "DURATION", description = "how long it lives, e.g. 30d")
        String lifetime;

        @Override
        JsonNode call(ApiClient client) {
            ObjectNode body = ApiClient.JSON.createObjectNode();
            if (label != null) {
                body.put("label", label);
            }
            if (lifetime != null) {
                body.put("lifetime", lifetime);
            }
            return client.post(tokensPath(owner(client, user)), body);
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            out.println(answer.path("token").asText());
            out.println("id:      " + text(answer, "id"));
            out.println("user:    " + text(answer, "user"));
            String capped = ApiClient.textOrNull(answer, "expiryCappedFrom");
            out.println("expires: " + text(answer, "expiresAt") + (capped == null ? ""
                    : " (capped: a token never outlives the token it was made with, which expires then; the lifetime"
                    + " would have ended " + capped + ")"));
            out.println("This is the only time the token is shown; keep it secret.");
        }
    }

    /** {@code allot token revoke ID}: revokes a token and every token minted with it. */
    @Command(name = "revoke", mixinStandardHelpOptions = true,
            description = "Revoke a token by its id (or a unique start of it), and every token made with it.")
    static final class Revoke extends ClientCommand {
        @Parameters(index = "0", paramLabel = "ID", description = "the token's id, as 'allot token list' shows it")
        String id;

        @Option(names = "--user", paramLabel = "NAME", description = "whose token (default: yours)")
        String user;

        String revoked;

        @Override
        JsonNode call(ApiClient client) {
            String name = owner(client, user);
            String wanted = id.strip().toLowerCase(java.util.Locale.ROOT);
            List<String> matches = new ArrayList<>();
            for (JsonNode t : client.get(tokensPath(name)).path("tokens")) {
                if (t.path("id").asText().startsWith(wanted)) {
                    matches.add(t.path("id").asText());
                }
            }
            if (wanted.isEmpty() || matches.size() != 1) {
                // without --user only the caller's own tokens are searched: an administrator revoking a token it
                // made for someone else (allot token create --user NAME) is told where that token is
                String list = user == null ? "'allot token list' shows them; another user's token: allot token"
                        + " revoke --user NAME " + id : "'allot token list --user " + name + "' shows them";
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, (matches.isEmpty() ? "no token of '"
                        + name + "' has an id starting '" + id + "'" : "'" + id + "' starts " + matches.size()
                        + " token ids; give more of it") + " (" + list + ")");
            }
            revoked = matches.get(0);
            return client.delete(tokensPath(name) + "/" + ApiClient.segment("a token id", revoked));
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            out.println("revoked " + revoked + " and every token made with it");
        }
    }

    /** {@code allot token policy}: how long tokens live; administrators change it with the options. */
    @Command(name = "policy", mixinStandardHelpOptions = true,
            header = "Show how long tokens live; administrators change it with --default and --max.",
            description = {"Both are durations such as 90d; what is not given is kept. The policy applies to tokens"
                            + " made afterwards."})
    static final class Policy extends ClientCommand {
        @Option(names = "--default", paramLabel = "DURATION", description = "the lifetime of a token that asks for none")
        String defaultLifetime;

        @Option(names = "--max", paramLabel = "DURATION", description = "the longest lifetime a token may ask for")
        String maxLifetime;

        @Override
        JsonNode call(ApiClient client) {
            JsonNode current = client.get("/v1/token-policy");
            if (defaultLifetime == null && maxLifetime == null) {
                return current;
            }
            ObjectNode body = ApiClient.JSON.createObjectNode();
            body.put("defaultLifetime", defaultLifetime != null ? defaultLifetime : current.path("defaultLifetime").asText());
            body.put("maxLifetime", maxLifetime != null ? maxLifetime : current.path("maxLifetime").asText());
            return client.put("/v1/token-policy", body);
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            out.println("default lifetime: " + text(answer, "defaultLifetime"));
            out.println("maximum lifetime: " + text(answer, "maxLifetime"));
        }
    }
}
