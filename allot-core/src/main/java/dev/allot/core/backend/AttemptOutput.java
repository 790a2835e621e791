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

    /**
     * The output read from byte {@code from} on ({@code bytes}, as far as the output went when read): starting at a
     * line's beginning when earlier output is left out (a cut line's tail reads as garbage), decoded as UTF-8 with
     * undecodable bytes replaced. The one rule for every backend that reads an output file's end.
     */
    public static AttemptOutput tail(byte[] bytes, long from) {
        int skip = 0;
        if (from > 0) {
            for (int i = 0; i < bytes.length - 1; i++) {
                if (bytes[i] == '\n') {
                    skip = i + 1;
                    break;
                }
            }
        }
        return new AttemptOutput(new String(bytes, skip, bytes.length - skip, java.nio.charset.StandardCharsets.UTF_8),
                from + bytes.length, from + skip);
    }

    /** Whether earlier output was left out. */
    public boolean truncated() {
        return fromByte > 0;
    }
}
