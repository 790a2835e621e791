package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The server's REST hints, as the API sends them, said for the command line. */
class CliHintsTest {

    @Test
    void givenTheHintsTheServerSends_whenShownAtTheCommandLine_thenTheyNameCommandsNotEndpoints() {
        // Each left side is a hint as allot-server writes it (ApiServer, Submission, UsersApi, ApiException, Edits).
        String[][] cases = {
            {"send the header 'Authorization: Bearer <token>' with a token an administrator gave you",
                "give your token with --token TOKEN or ALLOT_TOKEN (or \"token\" in the client configuration); an"
                        + " administrator makes one with 'allot token create --user NAME'"},
            {"GET /v1/allocations lists them", "'allot budget show' lists them"},
            {"GET /v1/allocations lists them; use the full path, e.g. \"lab/nlp/pretrain\"",
                "'allot budget show' lists them; use the full path, e.g. \"lab/nlp/pretrain\""},
            {"GET /v1/allocations lists them; name one of its leaves", "'allot budget show' lists them; name one of its leaves"},
            {"GET /v1/nodes lists them", "'allot nodes' lists them"},
            {"GET /v1/nodes lists the nodes; ask for fewer GPUs or a smaller gang",
                "'allot nodes' lists the nodes; ask for fewer GPUs or a smaller gang"},
            {"workload ids look like w-42; GET /v1/workloads lists them", "workload ids look like w-42; 'allot queue' lists them"},
            {"GET /v1/users lists them", "'allot user list' lists them"},
            {"GET /v1/users/ana/tokens lists them", "'allot token list --user ana' lists them"},
            {"GET /v1/token-policy tells the maximum", "'allot token policy' tells the maximum"},
            {"GET /v1/campaigns lists yours", "'allot campaign list' lists yours"},
            {"GET /v1/campaigns/eval-3 shows it", "'allot campaign status eval-3' shows it"},
            {"GET /v1/openapi.json lists the endpoints",
                "this client and the server may be different versions of Allot ('allot --version' tells this one's)"},
            {"send {\"share\": ...}; GET /v1/openapi.json describes it",
                "send {\"share\": ...}; 'allot budget set --help' describes the options"},
            {"ask a manager of the allocation to add you to its members", "ask a manager of the allocation to add you to its members"},
        };
        for (String[] c : cases) {
            assertThat(CliHints.hint(c[0], "allot budget set")).as(c[0]).isEqualTo(c[1]).doesNotContain("/v1/");
        }
        assertThat(CliHints.hint(null, "allot")).isNull();
    }

    @Test
    void givenAFieldOfTheCommandsOptions_whenNamed_thenItIsTheOption() {
        CommandLine submit = AllotCommand.commandLine().getSubcommands().get("submit");
        assertThat(CliHints.option("minRuntime", submit.getCommandSpec())).isEqualTo("--min-runtime");
        assertThat(CliHints.option("gpusPerNode", submit.getCommandSpec())).isEqualTo("--gpus-per-node");
        assertThat(CliHints.option("allocation", submit.getCommandSpec())).isEqualTo("--allocation");
        assertThat(CliHints.option("command", submit.getCommandSpec())).as("a positional, not an option").isNull();
        assertThat(CliHints.option("workloads[2].gpus", submit.getCommandSpec())).isNull();
        assertThat(CliHints.option(null, submit.getCommandSpec())).isNull();
    }

    @Test
    void givenAnOptionNamedOtherwiseThanItsField_whenTheFieldIsNamed_thenItIsTheOption() {
        // 'allot token policy --default 0' said "field 'defaultLifetime': ..." naming no option of the command
        CommandLine policy = AllotCommand.commandLine().getSubcommands().get("token").getSubcommands().get("policy");
        assertThat(CliHints.option("defaultLifetime", policy.getCommandSpec())).isEqualTo("--default");
        assertThat(CliHints.option("maxLifetime", policy.getCommandSpec())).isEqualTo("--max");
        // 'allot submit --env CUDA_VISIBLE_DEVICES=0' said "field 'environment': ..." naming no option
        CommandLine submit = AllotCommand.commandLine().getSubcommands().get("submit");
        assertThat(CliHints.option("environment", submit.getCommandSpec())).isEqualTo("--env");
        CommandLine brakes = AllotCommand.commandLine().getSubcommands().get("brakes").getSubcommands().get("set");
        assertThat(CliHints.option("maxGpuHoursPerWorkload", brakes.getCommandSpec())).isEqualTo("--max-gpu-hours");
        ApiClient.ClientException e = new ApiClient.ClientException(2, "field 'defaultLifetime': expected at least 1s",
                "defaultLifetime", null);
        assertThat(CliHints.message(e, policy.getCommandSpec()))
                .isEqualTo("--default: expected at least 1s");
    }

    @Test
    void givenAFieldAnArgumentCarries_whenTheErrorIsPrinted_thenTheArgumentIsNamedAsTheUsageNamesIt() {
        // 'allot progress w-1 5 3' said "field 'done': expected at most total (3), got 5", a name it never showed
        CommandLine progress = AllotCommand.commandLine().getSubcommands().get("progress");
        ApiClient.ClientException done = new ApiClient.ClientException(2, "field 'done': expected at most total (3),"
                + " got 5", "done", "progress is done units out of total units, e.g. steps");
        assertThat(CliHints.message(done, progress.getCommandSpec())).isEqualTo("DONE: expected at most total (3),"
                + " got 5 (hint: progress is done units out of total units, e.g. steps)");
        CommandLine submit = AllotCommand.commandLine().getSubcommands().get("submit");
        ApiClient.ClientException blank = new ApiClient.ClientException(2, "expected the program as the first item",
                "command", null);
        assertThat(CliHints.message(blank, submit.getCommandSpec()))
                .isEqualTo("expected the program as the first item (argument COMMAND)");
    }

    @Test
    void givenAFieldWithoutAnOption_whenTheErrorIsPrinted_thenTheFieldIsNamedOnce() {
        CommandLine submit = AllotCommand.commandLine().getSubcommands().get("submit");
        // (a field the command carries neither by an option nor by an argument: 'command' is COMMAND now)
        ApiClient.ClientException e = new ApiClient.ClientException(2, "field 'checkpointEvery': expected ...",
                "checkpointEvery", null);
        assertThat(CliHints.message(e, submit.getCommandSpec())).isEqualTo("field 'checkpointEvery': expected ...");
        ApiClient.ClientException hinted = new ApiClient.ClientException(2, "field 'checkpointEvery': expected ...",
                "checkpointEvery", "GET /v1/users lists them");
        assertThat(CliHints.message(hinted, submit.getCommandSpec()))
                .isEqualTo("field 'checkpointEvery': expected ... (hint: 'allot user list' lists them)");
        ApiClient.ClientException unnamed = new ApiClient.ClientException(2, "expected ...", "checkpointEvery", null);
        assertThat(CliHints.message(unnamed, submit.getCommandSpec()))
                .isEqualTo("expected ... (field: checkpointEvery)");
        ApiClient.ClientException optioned = new ApiClient.ClientException(2, "field 'minRuntime': expected ...",
                "minRuntime", null);
        assertThat(CliHints.message(optioned, submit.getCommandSpec()))
                .isEqualTo("--min-runtime: expected ...");
        ApiClient.ClientException unnamedOptioned = new ApiClient.ClientException(2, "expected ...", "minRuntime", null);
        assertThat(CliHints.message(unnamedOptioned, submit.getCommandSpec()))
                .isEqualTo("expected ... (option --min-runtime)");
        ApiClient.ClientException plain = new ApiClient.ClientException(1, "cannot reach the Allot server");
        assertThat(CliHints.message(plain, submit.getCommandSpec())).isEqualTo("cannot reach the Allot server");
    }
}
