package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;

/**
 * The line a listing of running work prints while the service cannot observe its backend ({@code /v1/health}
 * {@code degraded}, its {@code backend} object): the states shown are the last ones seen, which a researcher otherwise
 * reads as live (slurmctld down, the queue showed the last states without a word). Asked after the listing; a health
 * answer that cannot be had says nothing, as the listing is what was asked for.
 */
final class BackendNotice {
    private BackendNotice() {
    }

    /** The health answer's {@code backend} object while the service says it is degraded; else null. */
    static JsonNode fetch(ApiClient client) {
        try {
            JsonNode health = client.get("/v1/health");
            return health.path("status").asText().equals("degraded") && health.path("backend").isObject()
                    ? health.path("backend") : null;
        } catch (ApiClient.ClientException e) {
            return null;
        }
    }

    /** Prints the notice for {@code backend} (from {@link #fetch}); nothing when it is missing or null. */
    static void print(JsonNode backend, PrintWriter out) {
        if (backend == null || !backend.isObject()) {
            return;
        }
        JsonNode seen = backend.path("lastObservedAt");
        out.println("(the " + backend.path("name").asText() + " backend has not answered "
                + (seen.isTextual() ? "since " + seen.asText() : "since the service started") + ": "
                + dev.allot.core.model.Words.count(backend.path("failures").asLong(), "observation") + " failed since "
                + backend.path("failingSince").asText() + ", the last with: " + backend.path("lastError").asText()
                + "; running work is shown as last seen, and none of it is taken as ended meanwhile)");
    }
}
