package dev.allot.cli;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.sim.Scenario;
import dev.allot.sim.SimulationResult;
import dev.allot.sim.Simulator;
import dev.allot.sim.generate.GeneratorSpec;
import dev.allot.sim.generate.ScenarioGenerator;
import dev.allot.sim.input.ScenarioReader;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code allot bench}: measures the simulator. For each scenario (a folder, or a generated preset) and policy it
 * runs warm-up rounds, then timed rounds, and prints wall time, events per second and heap. Measured, never asserted:
 * numbers depend on the machine.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = {"Benchmark the simulator: wall time, events per second, peak heap and CPU per scenario and"
                        + " policy.",
                "The CPU column is the least CPU time of the simulating thread in a round.",
                "Default: the lab preset and the big preset (1,024 nodes, ~100k workloads, 30 days); or --scenario"
                        + " DIR, or --trace FORMAT:PATH --nodes COUNTxGPUS."})
final class BenchCommand implements Callable<Integer> {
    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--preset", split = ",", paramLabel = "PRESET", description = "generated presets to run (default: lab,big unless --scenario is given)")
    List<String> presets;

    @Option(names = "--scenario", paramLabel = "DIR", description = "scenario folders to run")
    List<Path> scenarios = new ArrayList<>();

    @picocli.CommandLine.Mixin
    TraceOptions traceOptions = new TraceOptions();

    @Option(names = "--policy", split = ",", paramLabel = "POLICY", defaultValue = "allocation,legacy", description = "policies (default: ${DEFAULT-VALUE})")
    List<String> policies;

    @Option(names = "--seed", paramLabel = "SEED", defaultValue = "42", description = "generator seed (default: ${DEFAULT-VALUE})")
    long seed;

    @Option(names = "--warmup", paramLabel = "N", defaultValue = "1", description = "untimed rounds first (default: ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--rounds", paramLabel = "N", defaultValue = "3", description = "timed rounds (default: ${DEFAULT-VALUE})")
    int rounds;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PolicyRegistry registry = PolicyRegistry.standard();
        policies = PolicyList.check(policies, registry);
        List<String> which = presets != null ? presets
                : scenarios.isEmpty() && !traceOptions.given() ? List.of("lab", "big") : List.of();
        checkOptions(which);
        traceOptions.checkNoTraceOnly("a preset makes its own cluster and allocations, a --scenario folder gives"
                + " them in its files");
        for (Path d : scenarios) { // before the header: a missing folder is the whole answer
            if (!java.nio.file.Files.isDirectory(d)) {
                throw new IllegalArgumentException("--scenario " + d + ": " + (java.nio.file.Files.exists(d)
                        ? "not a folder" : "no such folder") + "; expected a scenario folder (cluster.yaml,"
                        + " allocations.yaml, workloads.csv), such as examples/tiny");
            }
        }
        // how long each scenario took to make, printed after the table: between the header and the rows (and between
        // the rows of two scenarios) the line "examples/tiny  read in 0.13 s" broke the table
        List<String> made = new ArrayList<>();
        // a trace is imported before the header, so that a bad file is the whole answer (its error came after the JVM
        // line and the header); it then runs first, so that it is not held in the heap while the others are measured
        Scenario trace = null;
        if (traceOptions.given()) {
            long t0 = System.nanoTime();
            trace = traceOptions.scenario(null, false, registry);
            made.add(String.format(Locale.ROOT, "%-24s imported in %.2f s", traceOptions.trace, (System.nanoTime() - t0) / 1e9));
        }
        out.printf(Locale.ROOT, "java %s on %d cores, max heap %d MB%n", System.getProperty("java.version"),
                Runtime.getRuntime().availableProcessors(), Runtime.getRuntime().maxMemory() >> 20);
        out.printf("%-24s %-11s %10s %10s %10s %12s %10s %10s %10s %10s%n", "scenario", "policy", "workloads", "events",
                "best s", "events/s", "median s", "peak MB", "live MB", "cpu s");
        if (trace != null) {
            run(out, registry, trace);
            trace = null; // not live while the others run
        }
        for (String p : which) {
            long t0 = System.nanoTime();
            Scenario s = ScenarioGenerator.generate(GeneratorSpec.preset(p), seed).toScenario(p);
            made.add(String.format(Locale.ROOT, "%-24s generated in %.2f s", "preset " + p, (System.nanoTime() - t0) / 1e9));
            run(out, registry, s);
        }
        for (Path d : scenarios) {
            long t0 = System.nanoTime();
            Scenario s = ScenarioReader.read(d, false, registry);
            made.add(String.format(Locale.ROOT, "%-24s read in %.2f s", d, (System.nanoTime() - t0) / 1e9));
            run(out, registry, s);
        }
        out.println();
        made.forEach(out::println);
        out.flush();
        return 0;
    }

    /**
     * The counts and preset names, checked before the header is printed and anything runs, each refused naming its
     * option ({@code --rounds 0} failed with an ArrayIndexOutOfBoundsException after the first scenario was made, and
     * an unknown preset was refused only after the header).
     */
    private void checkOptions(List<String> which) {
        if (rounds < 1) {
            throw new IllegalArgumentException("--rounds expects a whole number >= 1 (timed rounds), got " + rounds);
        }
        if (warmup < 0) {
            throw new IllegalArgumentException("--warmup expects a whole number >= 0 (untimed rounds), got " + warmup);
        }
        which.forEach(GeneratorSpec::preset);
        PresetDays.checkSeed(!which.isEmpty(), spec.commandLine().getParseResult().hasMatchedOption("--seed"));
    }

    private void run(PrintWriter out, PolicyRegistry registry, Scenario s) {
        for (String policy : policies) {
            for (int i = 0; i < warmup; i++) {
                new Simulator(s, registry, policy, Simulator.Options.defaults()).run();
            }
            double[] seconds = new double[rounds];
            double[] cpu = new double[rounds];
            long events = 0;
            long peak = 0;
            for (int i = 0; i < rounds; i++) {
                System.gc();
                resetPeaks();
                long cpu0 = threadCpuNanos();
                SimulationResult r = new Simulator(s, registry, policy, Simulator.Options.defaults()).run();
                cpu[i] = (threadCpuNanos() - cpu0) / 1e9;
                seconds[i] = r.run().wallNanos() / 1e9;
                events = r.run().events();
                peak = Math.max(peak, peakHeap());
            }
            System.gc();
            long live = usedHeap();
            double[] sorted = seconds.clone();
            Arrays.sort(sorted);
            Arrays.sort(cpu);
            out.printf(Locale.ROOT, "%-24s %-11s %,10d %,10d %10.3f %,12.0f %10.3f %,10d %,10d %10.3f%n", s.name(), policy,
                    s.workloads().size(), events, sorted[0], events / sorted[0], sorted[sorted.length / 2], peak >> 20,
                    live >> 20, cpu[0]);
            out.flush();
        }
    }

    /**
     * CPU time of this thread, which runs the simulation (reading the scenario is not in it): on a shared machine it
     * varies less than wall time; 0 where the JVM cannot measure it (the column then shows 0).
     */
    private static long threadCpuNanos() {
        java.lang.management.ThreadMXBean t = ManagementFactory.getThreadMXBean();
        return t.isCurrentThreadCpuTimeSupported() ? t.getCurrentThreadCpuTime() : 0;
    }

    private static void resetPeaks() {
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                pool.resetPeakUsage();
            }
        }
    }

    /** Sum of the heap pools' peaks since the last reset: an upper bound on the heap the run needed, garbage included. */
    private static long peakHeap() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                sum += pool.getPeakUsage().getUsed();
            }
        }
        return sum;
    }

    private static long usedHeap() {
        long sum = 0;
        for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
            if (pool.getType() == MemoryType.HEAP) {
                sum += pool.getUsage().getUsed();
            }
        }
        return sum;
    }
}
