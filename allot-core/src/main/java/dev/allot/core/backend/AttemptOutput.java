package dev.allot.core.backend;

import java.util.Objects;

/**
 * The end of what an attempt wrote (its stdout and stderr, merged), as its backend keeps it: {@code text} is the
 * output from byte {@code fromByte} to {@code sizeBytes} (the whole output so far is {@code sizeBytes} long; {@code
 * fromByte} 0 when the text is all of it), decoded as UTF-8 with undecodable bytes replaced.
 */
public record AttemptOutput(String text, long sizeBytes, long fromByte) {
    public AttemptOutput {
        Objects.requireNonNull(text, "text");
        if (fromByte < 0 || fromByte > sizeBytes) {
            throw new IllegalArgumentException("fromByte must be within 0.." + sizeBytes + ", got " + fromByte);
        }
    }

    /** Whether earlier output was left out. */
    public boolean truncated() {
        return fromByte > 0;
    }
}
