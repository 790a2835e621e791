package dev.allot.sim.generate;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.core.model.WorkloadSpec;
import dev.allot.sim.Scenario;
import dev.allot.sim.generate.GeneratorSpec.Program;
import dev.allot.sim.generate.GeneratorSpec.Team;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

class GeneratorDeterminismTest {
    private static final GeneratorSpec LAB = GeneratorSpec.preset("lab");

    @Test
    void sameSpecAndSeedGiveAnEqualScenario() {
        GeneratedScenario a = ScenarioGenerator.generate(LAB, 42);
        GeneratedScenario b = ScenarioGenerator.generate(GeneratorSpec.preset("lab"), 42);

        assertThat(b).isEqualTo(a);
        assertThat(b.hashCode()).isEqualTo(a.hashCode());
        assertThat(b.workloads()).isEqualTo(a.workloads());
    }

    @Test
    void differentSeedsGiveDifferentWorkloadsButTheSameClusterAndTree() {
        GeneratedScenario a = ScenarioGenerator.generate(LAB, 1);
        GeneratedScenario b = ScenarioGenerator.generate(LAB, 2);

        assertThat(b).isNotEqualTo(a);
        assertThat(b.workloads()).isNotEqualTo(a.workloads());
        assertThat(b.healthEvents()).isNotEqualTo(a.healthEvents());
        assertThat(b.nodeGroups()).isEqualTo(a.nodeGroups());
        assertThat(GeneratedScenario.treeShape(b.tree())).isEqualTo(GeneratedScenario.treeShape(a.tree()));
    }

    @Test
    void workloadsAreSortedAsTheScenarioRequiresAndConvertToAScenario() {
        GeneratedScenario g = ScenarioGenerator.generate(LAB, 7);

        assertThat(g.workloads()).isEqualTo(Scenario.sorted(g.workloads()));
        Scenario s = g.toScenario("lab");
        assertThat(s.name()).isEqualTo("lab");
        assertThat(s.cluster().nodes()).hasSize(32);
        assertThat(s.cluster().totalGpus()).isEqualTo(256);
        assertThat(s.cluster().healthEvents()).isEqualTo(g.healthEvents());
        assertThat(s.workloads()).isEqualTo(g.workloads());
        assertThat(s.rejected()).isEmpty();
    }

    @Test
    void changingOneTeamsTraitsLeavesEveryOtherTeamsWorkloadsAlone() {
        // users, priority inflation and activity do not move volume between teams
        GeneratorSpec changed = editTeam(LAB, "vision", t -> new Team(t.name(), t.share(), t.users() + 3,
                GeneratorSpec.Activity.BURSTY, t.intensity(), !t.inflates(), t.affinity()));

        Map<String, List<String>> before = byTeam(ScenarioGenerator.generate(LAB, 5));
        Map<String, List<String>> after = byTeam(ScenarioGenerator.generate(changed, 5));

        assertThat(after.get("vision")).isNotEqualTo(before.get("vision"));
        for (String team : before.keySet()) {
            if (!team.equals("vision")) {
                assertThat(after.get(team)).as(team).isEqualTo(before.get(team));
            }
        }
    }

    @Test
    void movingVolumeToOneTeamOnlyShortensOtherTeamsStreams() {
        GeneratorSpec changed = editTeam(LAB, "nlp", t -> new Team(t.name(), t.share(), t.users(), t.activity(),
                t.intensity() * 2, t.inflates(), t.affinity()));

        Map<String, List<String>> before = byTeamAndKind(ScenarioGenerator.generate(LAB, 5));
        Map<String, List<String>> after = byTeamAndKind(ScenarioGenerator.generate(changed, 5));

        for (String stream : before.keySet()) {
            if (stream.startsWith("nlp/")) {
                continue;
            }
            List<String> shorter = after.getOrDefault(stream, List.of());
            // every workload the other team keeps is one it had before
            assertThat(before.get(stream)).as(stream).containsAll(shorter);
            assertThat(shorter.size()).as(stream).isLessThanOrEqualTo(before.get(stream).size());
        }
    }

    /** Each team's workloads without their ids (ids follow global submission order). */
    private static Map<String, List<String>> byTeam(GeneratedScenario g) {
        Map<String, List<String>> out = new HashMap<>();
        for (WorkloadSpec w : g.workloads()) {
            out.computeIfAbsent(w.allocation(), k -> new ArrayList<>()).add(withoutId(w));
        }
        return out;
    }

    private static Map<String, List<String>> byTeamAndKind(GeneratedScenario g) {
        Map<String, List<String>> out = new HashMap<>();
        for (WorkloadSpec w : g.workloads()) {
            out.computeIfAbsent(w.allocation() + "/" + w.kind(), k -> new ArrayList<>()).add(withoutId(w));
        }
        return out;
    }

    private static String withoutId(WorkloadSpec w) {
        return w.submitSeconds() + "," + w.user() + "," + w.gpus() + "," + w.gpusPerNode() + "," + w.duration() + ","
                + w.minRuntime() + "," + w.resumable() + "," + w.checkpointEvery() + "," + w.priority() + "," + w.kind();
    }

    static GeneratorSpec editTeam(GeneratorSpec spec, String team, UnaryOperator<Team> edit) {
        List<Program> programs = new ArrayList<>();
        for (Program p : spec.programs()) {
            programs.add(new Program(p.name(), p.share(),
                    p.teams().stream().map(t -> t.name().equals(team) ? edit.apply(t) : t).toList()));
        }
        return new GeneratorSpec(spec.name(), spec.cluster(), spec.days(), spec.root(), programs, spec.kinds(),
                spec.bursts(), spec.failures(), spec.backlogDays());
    }
}
