package dev.allot.sim;

/** The Allot release this code is: printed by {@code allot --version} and stamped into JSON and HTML reports. */
public final class AllotVersion {
    public static final String VERSION = "0.1.0";

    private AllotVersion() {
    }
}
