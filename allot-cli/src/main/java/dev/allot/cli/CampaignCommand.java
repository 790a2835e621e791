package dev.allot.cli;

import picocli.CommandLine.Command;

/** {@code allot campaign}: campaigns, many shards of one job finished as early as the budget allows. */
@Command(name = "campaign", mixinStandardHelpOptions = true,
        header = "Campaigns: many shards of one job, a few protected, finished as early as the budget allows.",
        description = {"Campaigns: many shards of one job submitted together to one allocation, a few of them",
                "protected (charged, with a minimum runtime) and the rest unallocated on idle GPUs, the protected",
                "slots going to the shards with the longest remaining work."},
        subcommands = {CampaignSimulateCommand.class})
final class CampaignCommand extends GroupCommand {
    CampaignCommand() {
        super("simulate");
    }
}
