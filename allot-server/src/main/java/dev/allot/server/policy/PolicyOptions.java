package dev.allot.server.policy;

import java.util.Objects;

/**
 * What {@code allot serve} hands the service about its policy: the policy it read at start ({@code --policy-file},
 * else the data directory's {@code policy.yaml}, else the defaults), whether that was named on the command line, and
 * the reader of {@code policy.yaml} for {@code PUT /v1/policy}.
 *
 * <p>Which policy the service runs at start: the file named by {@code --policy-file} when given; else the text an
 * administrator last set through the API (kept in the store); else the data directory's {@code policy.yaml}; else
 * the defaults. So an edit through the API survives a restart, and a file named on the command line is obeyed.
 *
 * @param given    the policy read at start by the caller
 * @param explicit whether {@code given} was named on the command line ({@code --policy-file}): it then wins over the
 *                 text set through the API
 * @param reader   reads {@code policy.yaml} text with the simulator's rules and errors
 */
public record PolicyOptions(ServicePolicy given, boolean explicit, ServicePolicy.Reader reader) {
    public PolicyOptions {
        Objects.requireNonNull(given, "given");
        Objects.requireNonNull(reader, "reader");
    }

    /** The defaults and no reader of {@code policy.yaml} (a service started without the CLI). */
    public static PolicyOptions defaults() {
        return new PolicyOptions(ServicePolicy.defaults(), false, ServicePolicy.Reader.DEFAULTS_ONLY);
    }
}
