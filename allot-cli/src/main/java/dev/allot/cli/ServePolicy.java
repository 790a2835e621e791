package dev.allot.cli;

import dev.allot.core.policy.PolicyRegistry;
import dev.allot.server.policy.PolicyOptions;
import dev.allot.server.policy.ServicePolicy;
import dev.allot.sim.PolicyConfig;
import dev.allot.sim.input.InputException;
import dev.allot.sim.input.ScenarioReader;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The policy {@code allot serve} runs, read as {@code allot simulate} reads a scenario's {@code policy.yaml} (the
 * simulator's reader, so the same settings, defaults and error messages): {@code --policy-file} when given, else
 * the data directory's {@code policy.yaml} when there is one, else the defaults. The server depends only on the core;
 * this is where the CLI, which depends on both, hands it the reader ({@link ServicePolicy.Reader}), which
 * {@code PUT /v1/policy} uses too.
 */
final class ServePolicy {
    private ServePolicy() {
    }

    /** The simulator's reader of {@code policy.yaml}, for the service; a bad text is an IllegalArgumentException. */
    static ServicePolicy.Reader reader() {
        PolicyRegistry registry = PolicyRegistry.standard();
        return (text, name, source) -> {
            PolicyConfig c;
            try {
                c = ScenarioReader.readPolicy(name, text, registry);
            } catch (InputException e) {
                throw new IllegalArgumentException(e.getMessage(), e);
            }
            return of(c, text, name, source, registry);
        };
    }

    /**
     * What {@code serve} was given: {@code policyFile} when not null, else {@code dataDir/policy.yaml} when it
     * exists, else the defaults. Reads nothing else and creates nothing.
     *
     * @throws InputException naming the file, line and field when the file does not read
     */
    static PolicyOptions options(Path policyFile, Path dataDir) {
        PolicyRegistry registry = PolicyRegistry.standard();
        Path file = policyFile != null ? policyFile : dataDir.resolve(ServicePolicy.FILE);
        if (policyFile == null && !Files.exists(file)) {
            return new PolicyOptions(ServicePolicy.defaults(), false, reader());
        }
        if (!Files.exists(file)) {
            throw new IllegalArgumentException("--policy-file " + policyFile + ": no such file; expected a policy.yaml"
                    + " (allot policy show --yaml prints the one a running service has)");
        }
        PolicyConfig c = ScenarioReader.readPolicy(file, registry);
        String text;
        try {
            text = Files.readString(file);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("cannot read " + file + ": " + e.getMessage(), e);
        }
        String source = "file " + file.toAbsolutePath().normalize()
                + (policyFile != null ? " (--policy-file)" : " (in the data directory)");
        return new PolicyOptions(of(c, text, file.toString(), source, registry), policyFile != null, reader());
    }

    /**
     * The service's policy from what {@code name} read as; refused when it has a section of another policy than the
     * one the service runs: those settings would be silently ignored (a file of only {@code slurm:} settings ran the
     * defaults and was answered "policy set").
     */
    private static ServicePolicy of(PolicyConfig c, String text, String name, String source, PolicyRegistry registry) {
        for (String section : c.perPolicy().keySet()) {
            if (!section.equals(ServicePolicy.POLICY)) {
                throw new IllegalArgumentException(name + ": section '" + section + "' does not apply: allot serve runs"
                        + " the " + ServicePolicy.POLICY + " policy, so its policy.yaml holds the shared settings"
                        + " (lookback, max-min-runtime, usage-bucket) and an '" + ServicePolicy.POLICY + ":' section"
                        + " only (hint: remove '" + section + ":'; a scenario's policy.yaml for allot simulate may hold"
                        + " every policy's sections)");
            }
        }
        return new ServicePolicy(text, source, c.scheduler(), c.settingsFor(registry.get(ServicePolicy.POLICY)));
    }
}
