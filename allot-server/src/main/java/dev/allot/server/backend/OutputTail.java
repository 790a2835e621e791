package dev.allot.server.backend;

import dev.allot.core.backend.AttemptOutput;
import dev.allot.core.backend.BackendException;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Reads the end of an output file that may still be growing: the last {@code maxBytes} as far as the file goes at
 * the moment it is read, cut where {@link AttemptOutput#lineStart} says and decoded as UTF-8. A file that is not
 * there is empty output: an attempt whose process never started wrote nothing.
 */
final class OutputTail {
    private OutputTail() {
    }

    static AttemptOutput read(Path file, int maxBytes) {
        if (maxBytes < 1) {
            throw new IllegalArgumentException("maxBytes must be positive, got " + maxBytes);
        }
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long size = ch.size();
            long from = Math.max(0, size - maxBytes);
            ByteBuffer buf = ByteBuffer.allocate((int) (size - from));
            while (buf.hasRemaining() && ch.read(buf, from + buf.position()) > 0) {
                // read to the size seen: what is written meanwhile is for the next read
            }
            byte[] bytes = java.util.Arrays.copyOf(buf.array(), buf.position());
            int start = AttemptOutput.lineStart(bytes, from);
            return new AttemptOutput(new String(bytes, start, bytes.length - start, StandardCharsets.UTF_8),
                    from + bytes.length, from + start);
        } catch (NoSuchFileException e) {
            return new AttemptOutput("", 0, 0);
        } catch (IOException e) {
            throw new BackendException("could not read " + file + ": " + e.getMessage(), e);
        }
    }
}
