package dev.allot.sim.campaign;

import dev.allot.core.campaign.CampaignStrategy;
import dev.allot.core.campaign.ShardPhase;
import dev.allot.core.campaign.ShardTier;
import dev.allot.core.campaign.ShardView;
import dev.allot.core.policy.PolicyRegistry;
import dev.allot.core.state.ClusterState;
import dev.allot.core.state.Job;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import dev.allot.sim.input.ScenarioReader;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

class ScratchLabTest {
    @Test
    void timeline() {
        long seed = Long.getLong("seed", 1);
        String strat = System.getProperty("strategy", "allot");
        Scenario sc = ScenarioGenerator.generate(GeneratorSpec.preset("lab").withDays(Integer.getInteger("days", 8)), seed).toScenario("lab");
        CampaignSpec spec = ScenarioReader.readCampaign(Path.of("../examples/campaign/oracle-eval.yaml"), sc.tree());
        for (CampaignSpec.Shard s : spec.shards()) {
            System.out.printf("shard %d %s units %d perUnit %d hours %.1f%n", s.index(), s.family(), s.units(), spec.trueSecondsPerUnit(s), spec.trueSeconds(s) / 3600.0);
        }
        for (String name : strat.split(",")) {
            CampaignDriver d = new CampaignDriver(spec, CampaignStrategy.named(name).orElseThrow());
            long[] nextPrint = {spec.submitAtSeconds()};
            SimulationResult r = new Simulator(sc, PolicyRegistry.standard(), "allocation",
                    Simulator.Options.defaults().withAgent(new dev.allot.sim.SimulationAgent() {
                        public long nextActionSeconds() { return d.nextActionSeconds(); }
                        public boolean wantsToAct() { return d.wantsToAct(); }
                        public boolean act(long t, Actions a) {
                            while (t >= nextPrint[0] && t >= spec.submitAtSeconds()) {
                                List<ShardView> v = d.views(nextPrint[0]);
                                int rp = 0, ru = 0, wp = 0, wu = 0, dn = 0; long left = 0;
                                for (ShardView s : v) {
                                    if (s.phase() == ShardPhase.DONE) dn++;
                                    else if (s.phase() == ShardPhase.RUNNING) { if (s.tier() == ShardTier.PROTECTED) rp++; else ru++; }
                                    else if (s.phase() == ShardPhase.WAITING) { if (s.tier() == ShardTier.PROTECTED) wp++; else wu++; }
                                    left += (s.unitsTotal() - s.unitsDone()) * spec.trueSecondsPerUnit(spec.shards().get(s.index()));
                                }
                                ClusterState st = a.state();
                                System.out.printf("%s h=%5.1f done=%2d runP=%d runU=%2d waitP=%d waitU=%2d leftH=%6.1f idleGpus=%d unallocRunning=%d%n", name,
                                        (nextPrint[0] - spec.submitAtSeconds()) / 3600.0, dn, rp, ru, wp, wu, left / 3600.0, st.freeIndex().totalFree(), st.unallocatedRunningGpus());
                                nextPrint[0] += 2 * 3600;
                            }
                            return d.act(t, a);
                        }
                        public void onStart(long time, Job job, dev.allot.core.state.Placement p, String reason) { d.onStart(time, job, p, reason); }
                        public void onPromote(long time, Job job) { d.onPromote(time, job); }
                        public void onPreempt(long time, Job job, dev.allot.core.state.Placement p, dev.allot.core.policy.PreemptionCause c, ClusterState.PreemptionResult res) { d.onPreempt(time, job, p, c, res); }
                        public void onComplete(long time, Job job, dev.allot.core.state.Placement p) { d.onComplete(time, job, p); }
                    })).run();
            CampaignOutcome o = d.outcome(r.run().endSeconds());
            System.out.println(o);
            List<Long> ends = o.shardEndSeconds();
            for (int i = 0; i < ends.size(); i++) {
                System.out.printf("end %d %.1fh (%.1fh work)%n", i, (ends.get(i) - spec.submitAtSeconds()) / 3600.0, spec.trueSeconds(spec.shards().get(i)) / 3600.0);
            }
        }
    }
}
