package dev.allot.server.api;

import io.javalin.compression.CompressionStrategy;
import io.javalin.compression.Compressor;
import io.javalin.http.Context;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A document the server holds whole in memory ({@code /v1/openapi.json}), answered with its {@code Content-Length}.
 * Javalin compresses a large answer on the fly, in chunks, with no length: the 100 KB OpenAPI document went out so,
 * and a length set by hand next to that compression made Jetty fail the answer (500: "written 20410 < 99712
 * content-length"). So the document is compressed here, once per encoding, with the compressor Javalin itself would
 * pick for the request's {@code Accept-Encoding}, and sent with that encoding and its length (Javalin leaves an answer
 * that has a {@code Content-Encoding} alone); a client that accepts none gets the document as it is, with its length.
 */
final class StaticDocument {
    private final byte[] bytes;
    private final String contentType;
    private final CompressionStrategy compression;
    private final Map<String, byte[]> encoded = new ConcurrentHashMap<>();

    /** @param compression the server's own ({@code config.http.compressionStrategy}), so both choose alike */
    StaticDocument(byte[] bytes, String contentType, CompressionStrategy compression) {
        this.bytes = bytes.clone();
        this.contentType = Objects.requireNonNull(contentType, "contentType");
        this.compression = Objects.requireNonNull(compression, "compression");
    }

    /** Answers 200 with the document (a HEAD: the same headers, no body). */
    void answer(Context ctx) {
        String accepted = ctx.header("Accept-Encoding");
        Compressor compressor = accepted == null ? null : compression.findMatchingCompressor(accepted);
        byte[] body = bytes;
        ctx.status(200).contentType(contentType).header("Vary", "Accept-Encoding");
        if (compressor != null) {
            body = encoded.computeIfAbsent(compressor.encoding(), e -> compress(compressor));
            ctx.header("Content-Encoding", compressor.encoding());
        }
        ctx.header("Content-Length", Integer.toString(body.length)).result(body);
    }

    private byte[] compress(Compressor compressor) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length / 4);
        try (OutputStream z = compressor.compress(out)) {
            z.write(bytes);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
