package dev.allot.sim.fidelity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.allot.sim.fidelity.StartAgreement.Start;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class StartAgreementTest {

    @Test
    void kendallTauIsOneForTheSameOrderAndMinusOneForTheReverse() {
        long[] x = {10, 20, 30, 40};
        assertEquals(1.0, StartAgreement.kendallTauB(x, new long[] {1, 2, 3, 100}), 1e-12);
        assertEquals(-1.0, StartAgreement.kendallTauB(x, new long[] {4, 3, 2, 1}), 1e-12);
    }

    @Test
    void kendallTauCountsOneSwappedPairOfThree() {
        // pairs (1,2) and (1,3) agree, (2,3) disagrees: (2 - 1) / 3
        assertEquals(1.0 / 3, StartAgreement.kendallTauB(new long[] {1, 2, 3}, new long[] {1, 3, 2}), 1e-12);
    }

    @Test
    void kendallTauBCorrectsForTies() {
        // one pair tied in x: 2 concordant / sqrt((3 - 1) * (3 - 0))
        assertEquals(2 / Math.sqrt(6), StartAgreement.kendallTauB(new long[] {1, 1, 2}, new long[] {1, 2, 3}), 1e-12);
        assertTrue(Double.isNaN(StartAgreement.kendallTauB(new long[] {5, 5}, new long[] {1, 2})));
        assertThrows(IllegalArgumentException.class, () -> StartAgreement.kendallTauB(new long[] {1}, new long[0]));
    }

    @Test
    void percentilesAreNearestRank() {
        long[] v = {7, 1, 3, 5, 9, 2, 8, 4, 6, 10};
        assertEquals(5, StartAgreement.percentile(v, 50));
        assertEquals(9, StartAgreement.percentile(v, 90));
        assertEquals(10, StartAgreement.percentile(v, 100));
        assertEquals(0, StartAgreement.percentile(new long[0], 50));
        assertThrows(IllegalArgumentException.class, () -> StartAgreement.percentile(v, 0));
    }

    @Test
    void comparesStartsAndWaitsOfWorkloadsStartedInBothRuns() {
        Map<String, Start> model = new LinkedHashMap<>();
        Map<String, Start> real = new HashMap<>();
        model.put("a", new Start(0, 0));
        real.put("a", new Start(0, 1));
        model.put("b", new Start(5, 10));
        real.put("b", new Start(6, 13)); // its own submission: wait 7 in the real run
        model.put("c", new Start(5, 20));
        real.put("c", new Start(5, 12)); // started before b in the real run: one discordant pair of three
        model.put("d", new Start(7, -1)); // never started in the model
        real.put("d", new Start(7, 30));
        model.put("e", new Start(8, 40)); // missing from the real run
        real.put("f", new Start(9, 50)); // missing from the model
        StartAgreement s = StartAgreement.of(model, real);
        assertEquals(3, s.compared());
        assertEquals(1, s.onlyInA());
        assertEquals(2, s.onlyInB());
        assertEquals(1.0 / 3, s.kendallTau(), 1e-12);
        assertEquals(3, s.startErrorP50Seconds()); // errors 1, 3, 8
        assertEquals(8, s.startErrorP90Seconds());
        assertEquals(8, s.startErrorMaxSeconds());
        assertEquals(5, s.waitP50SecondsA()); // waits 0, 5, 15
        assertEquals(15, s.waitP90SecondsA());
        assertEquals(7, s.waitP50SecondsB()); // waits 1, 7, 7
        assertEquals(7, s.waitP90SecondsB());
        assertEquals("3 workloads started in both: Kendall tau 0.333, start error median 3 s, p90 8 s, max 8 s;"
                + " wait median model 5 s / slurm 7 s, p90 model 15 s / slurm 7 s; started only in model: 1, only in"
                + " slurm: 2", s.summary("model", "slurm"));
    }

    @Test
    void theResultDoesNotDependOnTheMapsOrder() {
        Map<String, Start> a1 = new LinkedHashMap<>();
        Map<String, Start> a2 = new LinkedHashMap<>();
        Map<String, Start> b = new HashMap<>();
        for (int i = 0; i < 20; i++) {
            a1.put("w" + i, new Start(i, i * 3L % 17));
            b.put("w" + i, new Start(i, i * 5L % 13));
        }
        for (int i = 19; i >= 0; i--) {
            a2.put("w" + i, a1.get("w" + i));
        }
        assertEquals(StartAgreement.of(a1, b), StartAgreement.of(a2, b));
    }
}
