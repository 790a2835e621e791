package dev.allot.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.allot.core.model.Decimals;
import dev.allot.core.model.Durations;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code allot campaign submit|status|list|brakes|retry|cancel}: campaigns on the server ({@code /v1/campaigns}), many
 * shards of one job finished as early as the budget allows: a few shards protected (the longest remaining work), the
 * rest on idle GPUs, promoted in place when a protected slot frees.
 */
@Command(name = "campaign", mixinStandardHelpOptions = true,
        header = "Campaigns: many shards of one job, finished as early as the budget allows.",
        description = {"Campaigns: many shards of one job submitted together to one allocation. A few run protected"
                + " (the longest remaining work, by the rates measured from their progress), the rest on idle GPUs;"
                + " when a protected slot frees, the longest shard already running takes it where it runs.",
                "Example: allot campaign submit eval.yaml; allot campaign status eval-2026-03",
                "In the simulator: allot campaign simulate --preset lab \\",
                "                    --campaign examples/campaign/oracle-eval.yaml"},
        subcommands = {CampaignCommand.Submit.class, CampaignCommand.Status.class, CampaignCommand.ListCampaigns.class,
                CampaignCommand.Brakes.class, CampaignCommand.Retry.class, CampaignCommand.Cancel.class,
                CampaignSimulateCommand.class})
final class CampaignCommand extends GroupCommand {
    static final int BAR = 20;

    CampaignCommand() {
        super("status");
    }

    /** {@code [#######.............]  35%}: done of total as a bar of {@value #BAR} characters and a percentage. */
    static String bar(long done, long total) {
        double f = total <= 0 ? 0 : Math.min(1, (double) done / total);
        int full = (int) Math.floor(f * BAR);
        return "[" + "#".repeat(full) + ".".repeat(BAR - full) + "] " + String.format(Locale.ROOT, "%3d%%",
                (int) Math.floor(f * 100));
    }

    /** The campaign's ETA in words: the time, {@code unknown} while running without one, or why there is none. */
    static String eta(JsonNode c) {
        String state = c.path("state").asText();
        if (!c.path("etaAt").isNull() && !c.path("etaAt").isMissingNode()) {
            return c.path("etaAt").asText();
        }
        return "running".equals(state) ? "unknown" : "none (" + state + ")";
    }

    /** A shard's note: when it was promoted in place, and how many of its workloads failed; "-" for neither. */
    private static String note(JsonNode s) {
        List<String> said = new ArrayList<>();
        if (!s.path("promotedAt").isNull() && !s.path("promotedAt").isMissingNode()) {
            said.add("promoted " + s.path("promotedAt").asText());
        }
        int failures = s.path("failures").asInt();
        if (failures > 0) {
            said.add("failed " + failures + (failures == 1 ? " time" : " times"));
        }
        return said.isEmpty() ? "-" : String.join("; ", said);
    }

    /** The server's note when the scheduler's cap cuts the shards' minimum runtime, as {@code allot submit} says it. */
    static void capNote(JsonNode c, PrintWriter out) {
        if (c.hasNonNull("minRuntimeNote")) {
            out.println("note: " + c.path("minRuntimeNote").asText());
        }
    }

    /** The campaign's status: its header, its progress, a table of its shards, then why shards are held. */
    static void status(JsonNode c, PrintWriter out) {
        out.println("campaign " + ClientCommand.text(c, "name") + " (" + ClientCommand.text(c, "owner") + ", "
                + ClientCommand.text(c, "allocation") + "): " + ClientCommand.text(c, "state") + "; protected slots "
                + ClientCommand.text(c, "protectedSlots") + ", strategy " + ClientCommand.text(c, "strategy")
                + ", min runtime " + ClientCommand.text(c, "minRuntime"));
        long done = c.path("unitsDone").asLong();
        long total = c.path("unitsTotal").asLong();
        out.println("progress " + bar(done, total) + "  " + done + "/" + total + " units; GPU-hours "
                + Decimals.fixed(c.path("gpuHoursUsed").asDouble(), 2) + " used, "
                + Decimals.fixed(c.path("gpuHoursCharged").asDouble(), 2) + " charged; ETA "
                + eta(c));
        capNote(c, out);
        out.println("brakes: " + caps(c.path("brakes")));
        int retries = c.path("failureRetries").asInt();
        if (retries > 0) {
            out.println("failure retries: a failed shard is queued again by itself up to " + retries
                    + (retries == 1 ? " time" : " times"));
        }
        List<List<String>> rows = new ArrayList<>();
        List<String> held = new ArrayList<>();
        for (JsonNode s : c.path("shards")) {
            long sd = s.path("unitsDone").asLong();
            long su = s.path("units").asLong();
            rows.add(List.of(s.path("index").asText(), ClientCommand.text(s, "workload"), ClientCommand.text(s, "family"),
                    bar(sd, su), sd + "/" + su, ClientCommand.text(s, "phase"), ClientCommand.text(s, "tier"),
                    Decimals.significant(s.path("secondsPerUnit").asDouble(), 3) + " s/unit",
                    s.path("rateSource").asText(), Durations.formatSeconds(s.path("remainingSeconds").asLong()),
                    ClientCommand.text(s, "etaAt"), note(s)));
            if (!s.path("heldReason").isNull()) {
                held.add("shard " + s.path("index").asText() + ": " + s.path("heldReason").asText());
            }
        }
        ClientCommand.table(out, List.of("SHARD", "WORKLOAD", "FAMILY", "PROGRESS", "UNITS", "PHASE", "TIER", "RATE",
                "RATE FROM", "LEFT", "ETA", "NOTE"), rows);
        held.forEach(out::println);
    }

    /** The caps in words: {@code shard 40 GPU-hours, 5 requeues; campaign 2000 GPU-hours}, or {@code none}. */
    static String caps(JsonNode b) {
        List<String> shard = new ArrayList<>();
        List<String> campaign = new ArrayList<>();
        if (b.hasNonNull("shardGpuHours")) {
            shard.add(number(b, "shardGpuHours") + " GPU-hours");
        }
        if (b.hasNonNull("shardRequeues")) {
            shard.add(b.path("shardRequeues").asText() + " requeues");
        }
        if (b.hasNonNull("campaignGpuHours")) {
            campaign.add(number(b, "campaignGpuHours") + " GPU-hours");
        }
        if (b.hasNonNull("campaignCost")) {
            campaign.add("cost " + number(b, "campaignCost") + " at " + number(b, "pricePerGpuHour") + " per GPU-hour");
        } else if (b.hasNonNull("pricePerGpuHour")) {
            campaign.add("price " + number(b, "pricePerGpuHour") + " per GPU-hour");
        }
        List<String> parts = new ArrayList<>();
        if (!shard.isEmpty()) {
            parts.add("per shard " + String.join(", ", shard));
        }
        if (!campaign.isEmpty()) {
            parts.add("campaign " + String.join(", ", campaign));
        }
        return parts.isEmpty() ? "none" : String.join("; ", parts);
    }

    private static String number(JsonNode b, String field) {
        return BudgetCommand.Show.number(b.path(field).asDouble());
    }

    /** {@code allot campaign submit FILE}: submits the campaign a YAML or JSON file describes. */
    @Command(name = "submit", mixinStandardHelpOptions = true,
            header = "Submit a campaign described by a YAML or JSON file.",
            description = {"Submit a campaign described by FILE (YAML or JSON, the fields in kebab-case): name,"
                    + " allocation, command ({shard} stands for the shard's index), environment, gpus, min-runtime,"
                    + " protected-shards or protected-gpus, seconds-per-unit, priority, shards (each units and"
                    + " optionally family), brakes (shard-gpu-hours, shard-requeues, campaign-gpu-hours,"
                    + " campaign-cost, price-per-gpu-hour), failure-retries (how many times a shard whose workload"
                    + " failed is queued again by itself; default 0: held until 'allot campaign retry').",
                    "Each shard runs as a workload of yours with ALLOT_CAMPAIGN, ALLOT_SHARD and ALLOT_RESUME_FROM (its"
                            + " units done) set; it reports progress with: allot progress \"$ALLOT_WORKLOAD_ID\" DONE"
                            + " UNITS."})
    static final class Submit extends ClientCommand {
        @Parameters(index = "0", paramLabel = "FILE", description = "the campaign file; - reads standard input")
        Path file;

        @Override
        JsonNode call(ApiClient client) {
            String text = PolicyCommand.Set.read(file);
            ObjectNode body = CampaignFile.read(file, text);
            try {
                return client.post("/v1/campaigns", body);
            } catch (ApiClient.ClientException e) {
                if (e.error() == null || e.exitCode() != AllotCommand.EXIT_BAD_INPUT) {
                    throw e;
                }
                throw new ApiClient.ClientException(e.exitCode(), CampaignFile.inFileTerms(file, text, e));
            }
        }

        @Override
        void render(JsonNode c, PrintWriter out) {
            out.println("submitted campaign " + text(c, "name") + ": " + c.path("shards").size() + " shards, "
                    + c.path("unitsTotal").asLong() + " units, protected slots " + text(c, "protectedSlots")
                    + "; the scheduler queues its shards now (allot campaign status " + ShellWords.quote(text(c, "name")) + ")");
            capNote(c, out);
        }
    }

    /** {@code allot campaign status NAME}: a campaign's progress, shard by shard. */
    @Command(name = "status", mixinStandardHelpOptions = true,
            header = "Show a campaign's progress, rates, phases, tiers and ETAs, shard by shard.",
            description = "Show a campaign's progress bar, GPU-hours and ETA, then a table of its shards: progress,"
                    + " phase, tier (protected or unallocated), the rate it is planned with and where it was measured,"
                    + " the work left, its ETA and whether it was promoted in place; then why shards are held.")
    static final class Status extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "the campaign")
        String name;

        /** {@code /v1/health}'s word while the backend is not seen (its shards' phases are then as last seen). */
        private JsonNode backend;

        @Override
        JsonNode call(ApiClient client) {
            JsonNode campaign = client.get("/v1/campaigns/" + ApiClient.segment("a campaign name", name));
            backend = BackendNotice.fetch(client);
            return campaign;
        }

        @Override
        void render(JsonNode c, PrintWriter out) {
            status(c, out);
            BackendNotice.print(backend, out);
        }
    }

    /** {@code allot campaign list}: your campaigns and those in allocations you manage (all for an administrator). */
    @Command(name = "list", mixinStandardHelpOptions = true,
            header = "List your campaigns and those in allocations you manage (all for an administrator).",
            description = "List your campaigns and those in the allocations you manage, newest first (every campaign"
                    + " for an administrator): owner, state, progress, shards by phase and ETA.")
    static final class ListCampaigns extends ClientCommand {
        @Override
        JsonNode call(ApiClient client) {
            return client.get("/v1/campaigns");
        }

        @Override
        void render(JsonNode answer, PrintWriter out) {
            List<List<String>> rows = new ArrayList<>();
            for (JsonNode c : answer.path("campaigns")) {
                java.util.Map<String, Integer> phases = new java.util.TreeMap<>();
                c.path("shards").forEach(s -> phases.merge(s.path("phase").asText(), 1, Integer::sum));
                List<String> counts = new ArrayList<>();
                phases.forEach((p, n) -> counts.add(n + " " + p));
                rows.add(List.of(text(c, "name"), text(c, "owner"), text(c, "allocation"), text(c, "state"),
                        bar(c.path("unitsDone").asLong(), c.path("unitsTotal").asLong()),
                        String.join(", ", counts), text(c, "etaAt")));
            }
            if (rows.isEmpty()) {
                out.println("no campaigns");
                return;
            }
            table(out, List.of("NAME", "OWNER", "ALLOCATION", "STATE", "PROGRESS", "SHARDS", "ETA"), rows);
        }
    }

    /** {@code allot campaign brakes NAME [--shard-gpu-hours H|none ...]}: shows or changes a campaign's caps. */
    @Command(name = "brakes", mixinStandardHelpOptions = true,
            header = "Show or change a campaign's brakes (its caps per shard and for the campaign).",
            description = {"Show or change a campaign's caps (its owner, managers above it, administrators); what is"
                    + " not given is kept, none removes a cap. A shard that spent a cap is held, not resubmitted; it"
                    + " runs again only when the cap is raised above what it spent.",
                    "Example: allot campaign brakes eval-2026-03 --shard-gpu-hours 60 \\",
                    "           --campaign-gpu-hours none"})
    static final class Brakes extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "the campaign")
        String name;

        @Option(names = "--shard-gpu-hours", paramLabel = "H|none", description = "GPU-hours one shard may use")
        String shardGpuHours;

        @Option(names = "--shard-requeues", paramLabel = "N|none",
                description = "times one shard may go back to the queue")
        String shardRequeues;

        @Option(names = "--campaign-gpu-hours", paramLabel = "H|none", description = "GPU-hours the campaign may use")
        String campaignGpuHours;

        @Option(names = "--campaign-cost", paramLabel = "C|none",
                description = "what the campaign may cost at --price-per-gpu-hour")
        String campaignCost;

        @Option(names = "--price-per-gpu-hour", paramLabel = "P|none", description = "a price per GPU-hour")
        String pricePerGpuHour;

        @Override
        JsonNode call(ApiClient client) {
            String path = "/v1/campaigns/" + ApiClient.segment("a campaign name", name);
            JsonNode current = client.get(path);
            if (shardGpuHours == null && shardRequeues == null && campaignGpuHours == null && campaignCost == null
                    && pricePerGpuHour == null) {
                return current;
            }
            ObjectNode body = ((ObjectNode) current.path("brakes")).deepCopy();
            set(body, "shardGpuHours", "--shard-gpu-hours", shardGpuHours, false);
            set(body, "shardRequeues", "--shard-requeues", shardRequeues, true);
            set(body, "campaignGpuHours", "--campaign-gpu-hours", campaignGpuHours, false);
            set(body, "campaignCost", "--campaign-cost", campaignCost, false);
            set(body, "pricePerGpuHour", "--price-per-gpu-hour", pricePerGpuHour, false);
            try {
                return client.put(path + "/brakes", body);
            } catch (ApiClient.ClientException e) {
                throw inOptionTerms(e);
            }
        }

        /**
         * The server's words about the caps with its fields named as this command's options: a cost without a price
         * said "field 'campaignCost': expected pricePerGpuHour beside it", names no option of this command has.
         */
        private static ApiClient.ClientException inOptionTerms(ApiClient.ClientException e) {
            if (e.error() == null) {
                return e;
            }
            String words = e.error();
            boolean renamed = false;
            for (Map.Entry<String, String> n : CampaignFile.BRAKES.entrySet()) {
                String option = "--" + n.getKey();
                String before = words;
                // "field 'campaignCost'" stays: CliHints says it as the option, once
                words = words.replaceAll("(?<!field ')\\b" + n.getValue() + "\\b", option);
                renamed |= !before.equals(words);
            }
            return renamed ? new ApiClient.ClientException(e.exitCode(), words, e.field(), e.hint()) : e;
        }

        private static void set(ObjectNode body, String field, String option, String value, boolean whole) {
            if (value == null) {
                return;
            }
            String v = value.strip().toLowerCase(Locale.ROOT);
            if (v.equals("none")) {
                body.putNull(field);
                return;
            }
            if (!whole) {
                body.put(field, NumberArguments.finite(option, value, "a finite number >= 0, or none"));
                return;
            }
            try {
                body.put(field, Integer.parseInt(v));
            } catch (NumberFormatException e) {
                throw new ApiClient.ClientException(AllotCommand.EXIT_BAD_INPUT, option + ": expected a whole number"
                        + " or none, got '" + value + "'");
            }
        }

        @Override
        void render(JsonNode c, PrintWriter out) {
            out.println("campaign " + text(c, "name") + " brakes: " + caps(c.path("brakes")));
        }
    }

    /**
     * {@code allot campaign retry NAME [--shard N]...}: queues again the shards held because their workload failed or
     * was cancelled, each from its units done (the babysitter's resubmission, decided by a person).
     */
    @Command(name = "retry", mixinStandardHelpOptions = true,
            header = "Queue again a campaign's shards held after their workload failed.",
            description = {"A shard whose workload failed beyond the campaign's failure-retries (or was cancelled) is held and not"
                    + " resubmitted by itself."
                    + " Once you have fixed the cause, retry queues it again (its owner, managers above it,"
                    + " administrators); it resumes from its units done (ALLOT_RESUME_FROM).",
                    "Without --shard, every shard held after a failure is retried. A shard held by the campaign's"
                            + " brakes runs again when its cap is raised instead (allot campaign brakes).",
                    "Example: allot campaign retry eval-2026-03 --shard 1"})
    static final class Retry extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "the campaign")
        String name;

        @Option(names = "--shard", paramLabel = "N", split = ",",
                description = "a shard to retry (repeat or separate with commas; default: every shard held after a"
                        + " failure)")
        List<Integer> shards;

        @Override
        JsonNode call(ApiClient client) {
            String path = "/v1/campaigns/" + ApiClient.segment("a campaign name", name) + "/retry";
            if (shards == null || shards.isEmpty()) {
                return client.post(path, null);
            }
            ObjectNode body = JsonNodeFactory.instance.objectNode();
            shards.forEach(body.putArray("shards")::add);
            return client.post(path, body);
        }

        @Override
        void render(JsonNode r, PrintWriter out) {
            List<String> retried = new ArrayList<>();
            r.path("retried").forEach(i -> retried.add(i.asText()));
            JsonNode c = r.path("campaign");
            String campaign = text(c, "name");
            if (retried.isEmpty()) {
                out.println("campaign " + campaign + ": no shard was retried (allot campaign status " + campaign + ")");
                return;
            }
            List<String> from = new ArrayList<>();
            for (String i : retried) {
                JsonNode s = c.path("shards").get(Integer.parseInt(i));
                from.add(i + " from unit " + s.path("unitsDone").asLong() + " of " + s.path("units").asLong());
            }
            out.println("campaign " + campaign + ": retrying shard" + (retried.size() == 1 ? " " : "s ")
                    + String.join(", ", from) + "; the scheduler queues " + (retried.size() == 1 ? "it" : "them")
                    + " now (allot campaign status " + campaign + ")");
        }
    }

    /** {@code allot campaign cancel NAME}: cancels a campaign and its workloads. */
    @Command(name = "cancel", mixinStandardHelpOptions = true,
            header = "Cancel a campaign and its workloads.",
            description = "Cancel a campaign (its owner, managers above it, administrators): its waiting workloads are"
                    + " cancelled at once, its running ones stopped.")
    static final class Cancel extends ClientCommand {
        @Parameters(index = "0", paramLabel = "NAME", description = "the campaign")
        String name;

        @Override
        JsonNode call(ApiClient client) {
            return client.delete("/v1/campaigns/" + ApiClient.segment("a campaign name", name));
        }

        @Override
        void render(JsonNode c, PrintWriter out) {
            out.println("campaign " + text(c, "name") + " is " + text(c, "state") + "; " + c.path("unitsDone").asLong()
                    + " of " + c.path("unitsTotal").asLong() + " units were done");
        }
    }
}
