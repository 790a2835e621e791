package dev.allot.server.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 as bytes on a socket, for what {@code java.net.http} will not send: lowercase or unknown methods,
 * unnormalised paths, oversized request lines and headers. One request per connection ({@code Connection: close}).
 */
final class RawHttp {
    private static final ObjectMapper JSON = new ObjectMapper();

    /**
     * An answer: status, the Content-Type header (null when none), the body as text and as JSON (null if not), and
     * the status line and headers as sent.
     */
    record Answer(int status, String contentType, String body, JsonNode json, String head) {
        String error() {
            return json == null ? null : json.path("error").asText(null);
        }

        /** The value of the first header named {@code name} (any case), or null when there is none. */
        String header(String name) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0 && line.substring(0, colon).trim().equalsIgnoreCase(name)) {
                    return line.substring(colon + 1).trim();
                }
            }
            return null;
        }
    }

    private RawHttp() {
    }

    /** Sends {@code head} (request line and headers, without the blank line) and {@code body}; reads the answer. */
    static Answer exchange(int port, String head, byte[] body) {
        return exchange(port, head, body, false);
    }

    /** The same; {@code endsThere}: the client closes its side after the body, sending nothing more. */
    static Answer exchange(int port, String head, byte[] body, boolean endsThere) {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 5_000);
            s.setSoTimeout(15_000);
            String h = head + (head.toLowerCase().contains("\r\nhost:") ? "" : "\r\nHost: 127.0.0.1")
                    + "\r\nConnection: close\r\n\r\n";
            s.getOutputStream().write(h.getBytes(StandardCharsets.ISO_8859_1));
            if (body != null) {
                try {
                    s.getOutputStream().write(body);
                } catch (IOException e) {
                    // the server may answer and close before reading a refused body; read what it said
                }
            }
            s.getOutputStream().flush();
            if (endsThere) {
                s.shutdownOutput();
            }
            return parse(readAll(s.getInputStream()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Answer request(int port, String method, String target, String token, String body) {
        byte[] bytes = body == null ? null : body.getBytes(StandardCharsets.UTF_8);
        String head = method + " " + target + " HTTP/1.1"
                + (token == null ? "" : "\r\nAuthorization: Bearer " + token)
                + (bytes == null ? "" : "\r\nContent-Type: application/json\r\nContent-Length: " + bytes.length);
        return exchange(port, head, bytes);
    }

    private static byte[] readAll(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buf = new byte[8192];
        try {
            for (int n; (n = in.read(buf)) >= 0; ) {
                out.write(buf, 0, n);
            }
        } catch (SocketTimeoutException | java.net.SocketException e) {
            if (out.size() == 0) {
                throw e;
            }
        }
        return out.toByteArray();
    }

    static Answer parse(byte[] raw) {
        String text = new String(raw, StandardCharsets.UTF_8);
        int end = text.indexOf("\r\n\r\n");
        if (!text.startsWith("HTTP/1.1 ") || end < 0) {
            throw new IllegalStateException("not an HTTP answer: '" + text + "'");
        }
        int status = Integer.parseInt(text.substring(9, 12));
        String contentType = null;
        boolean chunked = false;
        for (String line : text.substring(0, end).split("\r\n")) {
            String lower = line.toLowerCase();
            if (lower.startsWith("content-type:")) {
                contentType = line.substring(13).trim();
            }
            if (lower.startsWith("transfer-encoding:") && lower.contains("chunked")) {
                chunked = true;
            }
        }
        String body = text.substring(end + 4);
        if (chunked) {
            body = dechunk(body);
        }
        JsonNode json;
        try {
            json = body.isBlank() ? null : JSON.readTree(body);
        } catch (IOException e) {
            json = null;
        }
        return new Answer(status, contentType, body, json, text.substring(0, end));
    }

    private static String dechunk(String s) {
        StringBuilder out = new StringBuilder();
        int i = 0;
        while (i < s.length()) {
            int nl = s.indexOf("\r\n", i);
            if (nl < 0) {
                break;
            }
            int size = Integer.parseInt(s.substring(i, nl).trim(), 16);
            if (size == 0) {
                break;
            }
            out.append(s, nl + 2, Math.min(s.length(), nl + 2 + size));
            i = nl + 2 + size + 2;
        }
        return out.toString();
    }
}
