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
     * Where the text of an output read from byte {@code from} on ({@code bytes}, as far as the output went when read)
     * begins: at a line's beginning when earlier output is left out (a cut line's tail reads as garbage), else at its
     * first byte. The one rule for every backend that reads an output file's end; the backend decodes the bytes from
     * there as UTF-8 with undecodable bytes replaced (decoding is the reader's job: this module reads nothing) and
     * makes the record with {@code sizeBytes = from + bytes.length} and {@code fromByte = from + lineStart}.
     */
    public static int lineStart(byte[] bytes, long from) {
        if (from > 0) {
            for (int i = 0; i < bytes.length - 1; i++) {
                if (bytes[i] == '\n') {
                    return i + 1;
                }
            }
        }
        return 0;
    }

    /** Whether earlier output was left out. */
    public boolean truncated() {
        return fromByte > 0;
    }
}
