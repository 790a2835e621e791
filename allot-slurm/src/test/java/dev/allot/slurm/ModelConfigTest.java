package dev.allot.slurm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.allot.core.model.AllocationTree;
import dev.allot.core.policy.Settings;
import dev.allot.core.policy.slurm.SlurmPolicy;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ModelConfigTest {

    /** lab: vision 4, nlp 2 (nlp-big 3, nlp-small 1; managed by alice), speech 1.5. */
    private static AllocationTree lab() {
        return AllocationTree.builder("lab")
                .leaf("vision", 4)
                .child("nlp", 2, List.of("alice")).leaf("nlp-big", 3).leaf("nlp-small", 1).up()
                .leaf("speech", 1.5)
                .build();
    }

    private static SlurmPolicy.Config model(Map<String, String> given) {
        return ((SlurmPolicy) SlurmPolicy.FACTORY.create(Settings.parse(SlurmPolicy.FACTORY.settings(), given, "test")))
                .config();
    }

    private static ModelConfig.Output of(AllocationTree tree, Map<String, String> settings, List<String> users) {
        return ModelConfig.of(tree, model(settings), ModelConfig.Options.DEFAULTS.withUsers(users));
    }

    private static List<String> lines(String text, String prefix) {
        return Arrays.stream(text.split("\n")).filter(l -> l.startsWith(prefix)).toList();
    }

    @Test
    void accountsMirrorTheTreeWithSharesAsWholeNumbersPerSiblingGroup() {
        ModelConfig.Output o = of(lab(), Map.of(), List.of());
        assertThat(lines(o.sacctmgr(), "sacctmgr -i add account ")).containsExactly(
                "sacctmgr -i add account lab Parent=root Fairshare=1 Description='allot allocation lab' Organization=lab",
                "sacctmgr -i add account vision Parent=lab Fairshare=8 Description='allot allocation lab/vision'"
                        + " Organization=lab",
                "sacctmgr -i add account nlp Parent=lab Fairshare=4 Description='allot allocation lab/nlp'"
                        + " Organization=lab",
                "sacctmgr -i add account nlp-big Parent=nlp Fairshare=3 Description='allot allocation lab/nlp/nlp-big'"
                        + " Organization=lab",
                "sacctmgr -i add account nlp-small Parent=nlp Fairshare=1 Description='allot allocation"
                        + " lab/nlp/nlp-small' Organization=lab",
                "sacctmgr -i add account speech Parent=lab Fairshare=3 Description='allot allocation lab/speech'"
                        + " Organization=lab");
        assertThat(o.accounts()).containsExactly(Map.entry("lab", "lab"), Map.entry("vision", "vision"),
                Map.entry("nlp", "nlp"), Map.entry("nlp-big", "nlp-big"), Map.entry("nlp-small", "nlp-small"),
                Map.entry("speech", "speech"));
    }

    @Test
    void aTreeRootedAtRootUsesSlurmsOwnRootAndSharesAreReducedByTheirDivisor() {
        AllocationTree t = AllocationTree.builder("root").leaf("A", 50).leaf("b", 25).leaf("c", 0.125).build();
        ModelConfig.Output o = of(t, Map.of(), List.of());
        assertThat(lines(o.sacctmgr(), "sacctmgr -i add account ")).extracting(l -> l.split(" Description")[0])
                .containsExactly("sacctmgr -i add account a Parent=root Fairshare=400",
                        "sacctmgr -i add account b Parent=root Fairshare=200",
                        "sacctmgr -i add account c Parent=root Fairshare=1");
        assertThat(o.accounts()).containsEntry("A", "a");
    }

    @Test
    void theQosPreemptByRequeueWithTheModelsGraceTimeAndUsageFactor() {
        ModelConfig.Output o = of(lab(), Map.of("grace-time", "90s", "preemptible-usage-factor", "0.5"), List.of());
        assertThat(lines(o.sacctmgr(), "sacctmgr -i ") .subList(0, 3)).containsExactly(
                "sacctmgr -i add qos allocated Priority=1000",
                "sacctmgr -i add qos unallocated Priority=0 PreemptMode=requeue UsageFactor=0.5 GraceTime=90",
                "sacctmgr -i modify qos allocated set Preempt=unallocated");
    }

    @Test
    void usersJoinEveryLeafAccountAndManagersBecomeCoordinatorsOnceTheyAreUsers() {
        ModelConfig.Output o = of(lab(), Map.of(), List.of("root", "alice"));
        assertThat(lines(o.sacctmgr(), "sacctmgr -i add user root ")).containsExactly(
                "sacctmgr -i add user root Account=vision Fairshare=1 QOS=allocated,unallocated DefaultQOS=allocated",
                "sacctmgr -i add user root Account=nlp-big Fairshare=1 QOS=allocated,unallocated DefaultQOS=allocated",
                "sacctmgr -i add user root Account=nlp-small Fairshare=1 QOS=allocated,unallocated DefaultQOS=allocated",
                "sacctmgr -i add user root Account=speech Fairshare=1 QOS=allocated,unallocated DefaultQOS=allocated");
        assertThat(o.sacctmgr()).contains("sacctmgr -i modify user alice set DefaultAccount=vision\n")
                .contains("\nsacctmgr -i add coordinator Account=nlp Names=alice\n");
        ModelConfig.Output without = of(lab(), Map.of(), List.of("root"));
        assertThat(without.sacctmgr()).contains("\n# sacctmgr -i add coordinator Account=nlp Names=alice   # once alice")
                .doesNotContain("\nsacctmgr -i add coordinator");
    }

    @Test
    void slurmConfCarriesTheModelsSettings() {
        ModelConfig.Output o = ModelConfig.of(lab(), model(Map.of("weight-fairshare", "20000", "weight-age", "500",
                "weight-qos", "7000", "max-age", "2d", "decay-half-life", "3d", "calc-period", "2m",
                "backfill-max-jobs", "100", "preempt-exempt-time", "10m")),
                ModelConfig.Options.DEFAULTS.withIntervals(2, 1, 5));
        assertThat(lines(o.slurmConf(), "")).filteredOn(l -> !l.startsWith("#") && !l.isEmpty()).containsExactly(
                "AccountingStorageType=accounting_storage/slurmdbd",
                "AccountingStorageEnforce=associations,limits,qos",
                "AccountingStorageTRES=gres/gpu",
                "PartitionName=DEFAULT TRESBillingWeights=GRES/gpu=1.0",
                "PriorityType=priority/multifactor",
                "PriorityWeightFairshare=20000",
                "PriorityWeightAge=500",
                "PriorityWeightQOS=7000",
                "PriorityWeightJobSize=0",
                "PriorityWeightPartition=0",
                "PriorityWeightAssoc=0",
                "PriorityFavorSmall=NO",
                "PriorityMaxAge=2-00:00:00",
                "PriorityDecayHalfLife=3-00:00:00",
                "PriorityUsageResetPeriod=NONE",
                "PriorityCalcPeriod=2",
                "SchedulerType=sched/backfill",
                "SchedulerParameters=batch_sched_delay=0,sched_interval=2,bf_interval=1,bf_resolution=5,bf_max_job_test=100",
                "PreemptType=preempt/qos",
                "PreemptMode=REQUEUE",
                "JobRequeue=1",
                "PreemptExemptTime=00:10:00");
    }

    @Test
    void everySettingLineHasAValueAsSlurmRefusesAnEmptyOne() {
        for (Map<String, String> settings : List.of(Map.<String, String>of(), Map.of("backfill-max-jobs", "0",
                "decay-half-life", "0", "calc-period", "90s"))) {
            for (String line : lines(of(lab(), settings, List.of("root")).slurmConf(), "")) {
                if (!line.startsWith("#") && !line.isEmpty()) {
                    assertThat(line).as("a slurm.conf line").matches("[A-Za-z]+=\\S+( [A-Za-z]+=\\S+)*");
                }
            }
        }
    }

    @Test
    void whatSlurmCannotSayExactlyIsSaidInComments() {
        String conf = of(lab(), Map.of("backfill-max-jobs", "0", "decay-half-life", "0", "calc-period", "90s"),
                List.of()).slurmConf();
        assertThat(conf).contains("# backfill-max-jobs 0: no backfill.\nSchedulerType=sched/builtin\n")
                .contains("# 0: usage never decays, and the model never resets it.\n")
                .contains("PriorityDecayHalfLife=0\n")
                .contains("# calc-period is 90 s; Slurm's PriorityCalcPeriod takes whole minutes, rounded up here")
                .contains("PriorityCalcPeriod=2\n")
                .contains("in whole minutes: Slurm has no finer limit");
    }

    @Test
    void namesSlurmCannotTakeAreRefusedNamingTheAllocation() {
        assertThatThrownBy(() -> of(AllocationTree.builder("lab").leaf("team a", 1).build(), Map.of(), List.of()))
                .hasMessage("allocation 'team a' cannot be a Slurm account: expected " + ModelConfig.ACCOUNT_EXPECTED);
        assertThatThrownBy(() -> of(AllocationTree.builder("lab").leaf("NLP", 1).child("x", 1).leaf("nlp", 1).up()
                .build(), Map.of(), List.of()))
                .hasMessage("allocations 'NLP' and 'nlp' would both be Slurm account 'nlp' (Slurm keeps account names"
                        + " in lower case)");
        assertThatThrownBy(() -> of(AllocationTree.builder("lab").leaf("root", 1).build(), Map.of(), List.of()))
                .hasMessageContaining("allocation 'root' cannot be a Slurm account: 'root' is Slurm's own top account");
        assertThatThrownBy(() -> of(lab(), Map.of(), List.of("Bad User")))
                .hasMessageStartingWith("user 'Bad User': expected a Unix user name");
        assertThatThrownBy(() -> new ModelConfig.Options(List.of(), "same", "same", 60, 30, 60))
                .hasMessageContaining("two names, got 'same' twice");
        assertThatThrownBy(() -> ModelConfig.Options.DEFAULTS.withIntervals(0, 30, 60))
                .hasMessageContaining("at least 1 s");
    }

    @Test
    void theSameInputsGiveTheSameText() {
        assertThat(of(lab(), Map.of(), List.of("root"))).isEqualTo(of(lab(), Map.of(), List.of("root")));
    }
}
