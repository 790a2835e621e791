package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.Locale;
import picocli.CommandLine.Command;

/** {@code allot brakes}: the safety brakes on the server (workloads requeued too often or too costly are held). */
@Command(name = "brakes", mixinStandardHelpOptions = true,
        header = "The safety brakes that hold workloads requeued too often or run too long.",
        description = {"The safety brakes on the Allot server: a workload requeued more than --max-requeues times, or"
                        + " whose runs used --max-gpu-hours GPU-hours, is held (not started again) until a limit is"
                        + " raised."},
        subcommands = {BrakesCommand.Show.class, BrakesCommand.Set.class})
final class BrakesCommand extends GroupCommand {
    BrakesCommand() {
        super("show");
    }

    static void print(JsonNode b, PrintWriter out) {
        out.println("max requeues:               " + b.path("maxRequeues").asText());
        JsonNode cap = b.path("maxGpuHoursPerWorkload");
        out.println("max GPU-hours per workload: " + (cap.isNumber() ? BudgetCommand.Show.number(cap.asDouble()) : "none"));
    }

    /** {@code allot brakes show}: the limits. */
    @Command(name = "show", mixinStandardHelpOptions = true, description = "Show the safety brakes' limits.")
    static final class Show extends ClientCommand {
        @Override
        JsonNode call(ApiClient client) {
            return client.get("/v1/brakes");
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            print(answer, out);
        }
    }

    /**
     * {@code allot brakes set}: changes one limit or both (administrators); what is not given keeps its current value.
     * Raising a limit releases the held workloads that no longer trip a brake.
     */
    @Command(name = "set", mixinStandardHelpOptions = true,
            description = {"Change the safety brakes' limits (administrators; what is not given is kept).",
                    "Raising a limit releases the held workloads that no longer trip a brake.",
                    "Example: allot brakes set --max-requeues 30 --max-gpu-hours none"})
    static final class Set extends ClientCommand {
        @picocli.CommandLine.Option(names = "--max-requeues", paramLabel = "N",
                description = "how many times a workload may go back to the queue after having started (>= 0)")
        Integer maxRequeues;

        @picocli.CommandLine.Option(names = "--max-gpu-hours", paramLabel = "H|none",
                description = "GPU-hours of all of a workload's runs at which it is held, or none for no cap")
        String maxGpuHoursPerWorkload; // named as the JSON field, so that the server's errors name this option


        @Override
        JsonNode call(ApiClient client) {
            if (maxRequeues == null && maxGpuHoursPerWorkload == null) {
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT,
                        "give --max-requeues N, --max-gpu-hours H|none, or both");
            }
            JsonNode current = client.get("/v1/brakes");
            ObjectNode body = ApiClient.JSON.createObjectNode();
            body.put("maxRequeues", maxRequeues != null ? maxRequeues : current.path("maxRequeues").asInt());
            if (maxGpuHoursPerWorkload == null) {
                body.set("maxGpuHoursPerWorkload", current.path("maxGpuHoursPerWorkload"));
            } else if (maxGpuHoursPerWorkload.strip().toLowerCase(Locale.ROOT).equals("none")) {
                body.putNull("maxGpuHoursPerWorkload");
            } else {
                body.put("maxGpuHoursPerWorkload", NumberArguments.finite("--max-gpu-hours", maxGpuHoursPerWorkload,
                        "a finite number of GPU-hours >= 0, or none"));
            }
            return client.put("/v1/brakes", body);
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            print(answer, out);
        }
    }
}
