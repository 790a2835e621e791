package dev.allot.sim.input;

import java.io.BufferedReader;
import java.io.FilterReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CoderResult;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;

/**
 * Opens the text files the readers take (workloads, traces) so that a file that is not text fails as bad input at
 * its line and column instead of being read as something else: a NUL character (a file of NUL bytes, an image, an
 * archive) is an {@link InputException} there, which matters because readers skip blank-looking lines and a line of
 * NUL bytes looks blank to {@code trim}; a byte sequence that is not UTF-8 is located by {@link #notUtf8}.
 * A file whose name ends in {@code .gz} is gzip-compressed text and is read through a decompressor (the shipped
 * Philly trace is), so every reader of a stream of rows takes such files without a step of its own.
 */
public final class TextFiles {
    private TextFiles() {
    }

    /** A buffered UTF-8 reader of {@code path} that throws at the first NUL; {@code name} is the file in messages. */
    public static BufferedReader open(Path path, String name) throws IOException {
        Reader text = gzipped(path)
                ? new InputStreamReader(bytes(path, name), StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT))
                : Files.newBufferedReader(path, StandardCharsets.UTF_8);
        return new BufferedReader(new NulCheck(text, name), 1 << 16);
    }

    /** Whether {@code path} is read as gzip-compressed text: its name ends in {@code .gz}. */
    public static boolean gzipped(Path path) {
        Path n = path.getFileName();
        return n != null && n.toString().toLowerCase(java.util.Locale.ROOT).endsWith(".gz");
    }

    /** The bytes of {@code path}, decompressed when {@link #gzipped}; a file that is not gzip is bad input. */
    private static InputStream bytes(Path path, String name) throws IOException {
        InputStream in = Files.newInputStream(path);
        if (!gzipped(path)) {
            return in;
        }
        try {
            return new GZIPInputStream(in, 1 << 16);
        } catch (ZipException | java.io.EOFException e) {
            in.close();
            throw new InputException(name, 0, 0, null, "expected gzip-compressed text (the name ends in .gz), got"
                    + " bytes that are not gzip; decompress it or rename it without .gz");
        } catch (IOException | RuntimeException e) {
            in.close();
            throw e;
        }
    }

    /** The text of a whole (small) file, refused at its first NUL as {@link #open} does. */
    public static String read(Path path, String name) throws IOException {
        String text = Files.readString(path, StandardCharsets.UTF_8);
        int nul = text.indexOf('\0');
        if (nul >= 0) {
            int line = 1;
            int lineStart = 0;
            for (int i = 0; i < nul; i++) {
                if (text.charAt(i) == '\n') {
                    line++;
                    lineStart = i + 1;
                }
            }
            throw nulAt(name, line, nul - lineStart + 1);
        }
        return text;
    }

    /**
     * The error for an {@link IOException} met while reading {@code path}: for bytes that are not UTF-8, the line
     * and column of the first of them (found by reading the file again, only on this error path).
     */
    public static InputException readError(Path path, String name, IOException e) {
        if (e instanceof CharacterCodingException) {
            return notUtf8(path, name);
        }
        if (gzipped(path) && e instanceof java.io.EOFException) {
            // it quoted the JDK: '(Unexpected end of ZLIB input stream)', or '(null)' when the cut fell in the trailer
            return new InputException(name, 0, 0, null, "the gzip-compressed data is damaged or cut short: the file"
                    + " ends before its compressed data does, as a download or copy that stopped early does; fetch"
                    + " or compress the file again");
        }
        if (gzipped(path) && e instanceof ZipException) {
            String why = e.getMessage() == null || e.getMessage().isBlank() ? ""
                    : " (" + e.getMessage().toLowerCase(java.util.Locale.ROOT) + ")";
            return new InputException(name, 0, 0, null, "the gzip-compressed data is damaged or cut short: its"
                    + " compressed data is corrupt" + why + "; fetch or compress the file again");
        }
        return new InputException(name, 0, 0, null, "cannot read: " + inWords(e));
    }

    /** What went wrong with a file, in words rather than an exception's class name. */
    static String inWords(IOException e) {
        if (e instanceof java.nio.file.NoSuchFileException) {
            return "no such file";
        }
        if (e instanceof java.nio.file.AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof java.nio.file.FileSystemException f && f.getReason() != null) {
            return f.getReason().toLowerCase(java.util.Locale.ROOT);
        }
        String m = e.getMessage();
        return m == null || m.isBlank() ? e.getClass().getSimpleName() : m.toLowerCase(java.util.Locale.ROOT);
    }

    private static InputException notUtf8(Path path, String name) {
        if (!gzipped(path) && startsLikeGzip(path)) {
            // it said 'the file looks binary or is in another encoding', of a trace compressed without .gz
            return new InputException(name, 0, 0, null, "expected UTF-8 text, got gzip-compressed bytes; name the file"
                    + " with .gz at the end (it is then read through gzip) or decompress it");
        }
        if (!gzipped(path) && startsLikeUtf16(path)) {
            // it said 'got a byte sequence that is not UTF-8 (0xff); the file looks binary or is in another encoding'
            return new InputException(name, 0, 0, null, "expected UTF-8 text, got UTF-16 (the file starts with its"
                    + " byte-order mark, as spreadsheets write 'Unicode text'); save it as UTF-8, e.g. as 'CSV UTF-8'");
        }
        CharsetDecoder decoder = StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(CodingErrorAction.REPORT).onUnmappableCharacter(CodingErrorAction.REPORT);
        int line = 1;
        int column = 1;
        try (InputStream in = bytes(path, name)) {
            ByteBuffer bytes = ByteBuffer.allocate(8192);
            CharBuffer chars = CharBuffer.allocate(8192);
            boolean eof = false;
            while (true) {
                int n = eof ? -1 : in.read(bytes.array(), bytes.position(), bytes.remaining());
                if (n < 0) {
                    eof = true;
                } else {
                    bytes.position(bytes.position() + n);
                }
                bytes.flip();
                CoderResult r = decoder.decode(bytes, chars, eof);
                chars.flip();
                while (chars.hasRemaining()) {
                    if (chars.get() == '\n') {
                        line++;
                        column = 1;
                    } else {
                        column++;
                    }
                }
                chars.clear();
                if (r.isError()) {
                    return new InputException(name, line, column, null, "expected UTF-8 text, got a byte sequence"
                            + " that is not UTF-8 (0x" + String.format("%02x", bytes.get(bytes.position()) & 0xff)
                            + "); the file looks binary or is in another encoding");
                }
                bytes.compact();
                if (eof && !r.isOverflow()) {
                    break;
                }
            }
        } catch (IOException again) {
            return new InputException(name, 0, 0, null, "cannot read: " + inWords(again));
        }
        return new InputException(name, 0, 0, null, "expected UTF-8 text, got bytes that are not UTF-8");
    }

    /** Whether the file begins with a UTF-16 byte-order mark, 0xff 0xfe or 0xfe 0xff. */
    private static boolean startsLikeUtf16(Path path) {
        try (InputStream in = Files.newInputStream(path)) {
            int a = in.read();
            int b = in.read();
            return a == 0xff && b == 0xfe || a == 0xfe && b == 0xff;
        } catch (IOException e) {
            return false;
        }
    }

    /** Whether the file begins with gzip's magic bytes, 0x1f 0x8b. */
    private static boolean startsLikeGzip(Path path) {
        try (InputStream in = Files.newInputStream(path)) {
            return in.read() == 0x1f && in.read() == 0x8b;
        } catch (IOException e) {
            return false;
        }
    }

    private static InputException nulAt(String name, int line, int column) {
        return new InputException(name, line, column, null, "expected text, got a NUL character (byte 0); the file"
                + " looks binary (a file of NUL bytes, an image, an archive), not text");
    }

    /** Passes characters through, counting lines, and throws at the first NUL. */
    private static final class NulCheck extends FilterReader {
        private final String name;
        private int line = 1;
        private int column = 1;

        NulCheck(Reader in, String name) {
            super(in);
            this.name = name;
        }

        @Override
        public int read() throws IOException {
            int c = super.read();
            if (c >= 0) {
                look((char) c);
            }
            return c;
        }

        @Override
        public int read(char[] buf, int off, int len) throws IOException {
            int n = super.read(buf, off, len);
            for (int i = off; i < off + n; i++) {
                look(buf[i]);
            }
            return n;
        }

        private void look(char c) {
            if (c == '\n') {
                line++;
                column = 1;
            } else if (c == '\0') {
                throw nulAt(name, line, column);
            } else {
                column++;
            }
        }
    }
}
