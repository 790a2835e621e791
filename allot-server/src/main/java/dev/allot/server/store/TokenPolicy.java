package dev.allot.server.store;

/**
 * How long API tokens live, cluster-wide ({@link ClusterSettings#tokenPolicy()}), set by administrators: a token made
 * without asking for a lifetime lives {@code defaultLifetimeSeconds}; one may ask for any lifetime up to
 * {@code maxLifetimeSeconds}. A token minted with a token never outlives the token that minted it ({@link Access}).
 *
 * @param defaultLifetimeSeconds the lifetime of a token that asks for none; at least 1 and at most the maximum
 * @param maxLifetimeSeconds     the longest lifetime a token may ask for; at most {@link #MAX_MAX_LIFETIME_SECONDS}
 */
public record TokenPolicy(long defaultLifetimeSeconds, long maxLifetimeSeconds) {
    public static final long DAY_SECONDS = 86_400;
    /** 90 days: the lifetime of a token that asks for none, until an administrator changes it. */
    public static final long DEFAULT_DEFAULT_LIFETIME_SECONDS = 90 * DAY_SECONDS;
    /** 365 days: the longest lifetime a token may ask for, until an administrator changes it. */
    public static final long DEFAULT_MAX_LIFETIME_SECONDS = 365 * DAY_SECONDS;
    /** Ten years: no policy lets a token live longer (keeps expiry times far from overflowing). */
    public static final long MAX_MAX_LIFETIME_SECONDS = 3650 * DAY_SECONDS;
    public static final TokenPolicy DEFAULTS = new TokenPolicy(DEFAULT_DEFAULT_LIFETIME_SECONDS,
            DEFAULT_MAX_LIFETIME_SECONDS);

    public TokenPolicy {
        if (maxLifetimeSeconds < 1 || maxLifetimeSeconds > MAX_MAX_LIFETIME_SECONDS) {
            throw new IllegalArgumentException("maxLifetime must be between 1 second and " + MAX_MAX_LIFETIME_SECONDS
                    / DAY_SECONDS + " days, got " + maxLifetimeSeconds + " seconds");
        }
        if (defaultLifetimeSeconds < 1 || defaultLifetimeSeconds > maxLifetimeSeconds) {
            throw new IllegalArgumentException("defaultLifetime must be between 1 second and maxLifetime ("
                    + maxLifetimeSeconds + " seconds), got " + defaultLifetimeSeconds + " seconds");
        }
    }

    /**
     * The lifetime a new token gets: the one asked for (null: the default), which must not pass the maximum.
     *
     * @throws IllegalArgumentException when the one asked for is not positive or passes the maximum
     */
    public long lifetimeSeconds(Long asked) {
        if (asked == null) {
            return defaultLifetimeSeconds;
        }
        if (asked < 1 || asked > maxLifetimeSeconds) {
            throw new IllegalArgumentException("a token's lifetime must be between 1 second and the maximum the"
                    + " token policy allows (" + maxLifetimeSeconds + " seconds), got " + asked + " seconds");
        }
        return asked;
    }
}
