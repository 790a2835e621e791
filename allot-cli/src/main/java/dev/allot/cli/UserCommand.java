package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code allot user list|set|disable|enable}: the users of the server (administrators see all, others themselves);
 * administrators create them, change their role, and disable them (every token stops at once) or enable them again.
 */
@Command(name = "user", mixinStandardHelpOptions = true,
        header = "Users of the Allot server: create them, set their role, disable and enable them.",
        description = {"Administrators create them, set their role, and disable them (every token of theirs stops at"
                        + " once) or enable them again."},
        subcommands = {UserCommand.ListUsers.class, UserCommand.Set.class, UserCommand.Disable.class,
                UserCommand.Enable.class})
final class UserCommand extends GroupCommand {
    UserCommand() {
        super("list");
    }

    /**
     * One user on one line, with its status as 'allot user list' shows it: {@code enable} printed "ben  user", no
     * status at all, where {@code disable} printed "ben  user  disabled".
     */
    static void print(JsonNode u, PrintWriter out) {
        out.println(text(u) + "  " + u.path("role").asText() + "  " + status(u));
    }

    /** "enabled" or "disabled": the one word for whether a user may sign in. */
    private static String status(JsonNode u) {
        return u.path("disabled").asBoolean() ? "disabled" : "enabled";
    }

    private static String text(JsonNode u) {
        return u.path("name").asText();
    }

    static JsonNode put(ApiClient client, String name, ObjectNode body) {
        return client.put("/v1/users/" + ApiClient.segment("a user name", name), body);
    }

    /** {@code allot user list}. */
    @Command(name = "list", mixinStandardHelpOptions = true,
            description = "List the users (administrators: all; others: themselves).")
    static final class ListUsers extends ClientCommand {
        @Override
        JsonNode call(ApiClient client) {
            return client.get("/v1/users");
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode u : answer.path("users")) {
                rows.add(List.of(u.path("name").asText(), u.path("role").asText(), status(u)));
            }
            table(out, List.of("NAME", "ROLE", "STATUS"), rows);
        }
    }

    /** {@code allot user set NAME --role R}: creates a user or changes its role (administrators). */
    @Command(name = "set", mixinStandardHelpOptions = true,
            header = "Create a user or change its role (administrators).",
            description = "Example: allot user set ana --role user")
    static final class Set extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "the user's login name")
        String name;

        @Option(names = "--role", required = true, paramLabel = "admin|user", description = "admin or user")
        String role;

        @Override
        JsonNode call(ApiClient client) {
            ObjectNode body = ApiClient.JSON.createObjectNode();
            body.put("role", role.strip().toLowerCase(Locale.ROOT));
            return put(client, name, body);
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            print(answer, out);
        }
    }

    /** {@code allot user disable NAME}: every token of the user stops at once (administrators). */
    @Command(name = "disable", mixinStandardHelpOptions = true,
            description = "Disable a user: every token of theirs is refused at once (administrators).")
    static final class Disable extends SetDisabled {
        Disable() {
            super(true);
        }
    }

    /** {@code allot user enable NAME}: lets a disabled user sign in again (administrators). */
    @Command(name = "enable", mixinStandardHelpOptions = true,
            description = "Enable a disabled user again (administrators); tokens that have not expired work again.")
    static final class Enable extends SetDisabled {
        Enable() {
            super(false);
        }
    }

    /** {@code allot user disable|enable NAME}: sets whether the user is disabled and prints the user. */
    abstract static class SetDisabled extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "the user's login name")
        String name;

        private final boolean disabled;

        SetDisabled(boolean disabled) {
            this.disabled = disabled;
        }

        @Override
        JsonNode call(ApiClient client) {
            return put(client, name, ApiClient.JSON.createObjectNode().put("disabled", disabled));
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            print(answer, out);
        }
    }
}
