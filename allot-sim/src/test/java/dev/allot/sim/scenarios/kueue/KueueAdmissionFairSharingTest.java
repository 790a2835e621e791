package dev.allot.sim.scenarios.kueue;

import static dev.allot.sim.ScenarioBuilder.given;
import static dev.allot.sim.ScenarioBuilder.w;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.sim.ScenarioBuilder;
import org.junit.jupiter.api.Test;

/** Kueue's Admission Fair Sharing: inside a ClusterQueue, the LocalQueue (here: user) with less decayed usage first. */
class KueueAdmissionFairSharingTest {

    private static long startOf(ScenarioBuilder s, String id) {
        return s.run("kueue").workload(id).firstStartSeconds();
    }

    @Test
    void theUserWhoUsedLessGoesFirstEvenIfLater() {
        ScenarioBuilder s = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 1))
                .workload(w("a1").in("A").user("alice").gpus(8).runs("10h").at("0s"))
                .workload(w("a2").in("A").user("alice").gpus(8).runs("1h").at("5h"))
                .workload(w("b1").in("A").user("bob").gpus(8).runs("1h").at("6h"));
        // first in, first out without it
        assertThat(startOf(s, "a2")).isEqualTo(10 * 3600);
        // with it, bob (no usage) goes before alice (10 hours of 8 GPUs)
        ScenarioBuilder afs = s.set("kueue.admission-fair-sharing", "true");
        assertThat(startOf(afs, "b1")).isEqualTo(10 * 3600);
        assertThat(startOf(afs, "a2")).isEqualTo(11 * 3600);
    }

    @Test
    void usageDecaysWithTheHalfLifeSoOldHeavyUseCanWeighLessThanRecentLightUse() {
        // bob ran 8 GPUs for 20h long ago, alice 8 GPUs for 2h recently; carol holds the node until 40h, while
        // bob (30h) and then alice (31h) wait
        ScenarioBuilder s = given().nodes(1, 8)
                .allocations(t -> t.leaf("A", 1))
                .workload(w("bob-old").in("A").user("bob").gpus(8).runs("20h").at("0s"))
                .workload(w("alice-old").in("A").user("alice").gpus(8).runs("2h").at("20h"))
                .workload(w("carol").in("A").user("carol").gpus(8).runs("18h").at("22h"))
                .workload(w("bob-new").in("A").user("bob").gpus(8).runs("1h").at("30h"))
                .workload(w("alice-new").in("A").user("alice").gpus(8).runs("1h").at("31h"))
                .set("kueue.admission-fair-sharing", "true");
        // a week's half-life: bob's 160 GPU-hours still outweigh alice's 16 (about 0.58 against 0.06 GPUs)
        assertThat(startOf(s, "alice-new")).isEqualTo(40 * 3600);
        // a one-hour half-life: bob's use has all but vanished (8e-6 GPUs), alice's less so (2e-5): bob first
        assertThat(startOf(s.set("kueue.usage-half-life-time", "1h"), "bob-new")).isEqualTo(40 * 3600);
    }
}
