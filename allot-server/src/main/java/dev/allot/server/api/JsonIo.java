package dev.allot.server.api;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import dev.allot.core.rules.TypedNumbers;
import io.javalin.http.Context;
import java.util.ArrayList;
import java.util.List;

/**
 * How the API reads request bodies and writes answers: Jackson, strictly (unknown fields, duplicate keys, trailing
 * content and non-numeric numbers are refused), a malformed body answered as a 400 that says where. One instance per
 * {@link ApiServer}, shared by its handler classes ({@link UsersApi}, {@link AllocationsApi}, {@link ClusterApi}...)
 * so that every endpoint reads and writes JSON the same way.
 */
final class JsonIo implements UsersApi.Io {
    static final String JSON = "application/json";

    private final ObjectMapper mapper = JsonMapper.builder()
            .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
            .disable(JsonReadFeature.ALLOW_NON_NUMERIC_NUMBERS)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
            .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
            .build();

    /** The strict mapper itself, for what reads stored JSON (the audit trail's, the explanations'). */
    ObjectMapper mapper() {
        return mapper;
    }

    /** The request's body as JSON, strictly read; a 400 naming the line and column (or the field given twice). */
    @Override
    public JsonNode body(Context ctx) {
        String text = text(ctx);
        try {
            JsonNode tree = mapper.readTree(text);
            if (hasNonFinite(tree)) {
                refuseNonFinite(text);
            }
            return tree;
        } catch (JsonProcessingException e) {
            // Jackson's limit on nesting comes without a location: the streaming parser finds where it is met
            com.fasterxml.jackson.core.JsonLocation at = e.getLocation() != null ? e.getLocation()
                    : dev.allot.sim.input.ParserMessages.locate(mapper.getFactory(), text);
            String where = at == null ? "" : " at line " + at.getLineNr() + ", column " + at.getColumnNr();
            String field = duplicateField(e);
            if (field != null) {
                throw ApiException.badField(field, "given twice", "send each field once");
            }
            throw ApiException.badRequest("malformed JSON" + where + ": "
                    + firstLine(dev.allot.sim.input.ParserMessages.jsonSyntax(e.getOriginalMessage(), "the body")),
                    "the body must be one JSON object; GET /v1/openapi.json describes it");
        }
    }

    /**
     * The request's body as text, every endpoint's one way to read it: UTF-8, strictly. Bytes that are not UTF-8 are
     * refused with a 400 naming the offset of the first (counted in bytes from 0) and the byte itself; they were
     * replaced by U+FFFD, so a command of {@code "\xff\xfe"} was stored as two replacement characters.
     */
    static String text(Context ctx) {
        byte[] bytes = ctx.bodyAsBytes();
        java.nio.charset.CharsetDecoder decoder = java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT);
        java.nio.ByteBuffer in = java.nio.ByteBuffer.wrap(bytes);
        java.nio.CharBuffer out = java.nio.CharBuffer.allocate(bytes.length);
        java.nio.charset.CoderResult r = decoder.decode(in, out, true);
        if (!r.isError()) {
            r = decoder.flush(out);
        }
        if (r.isError()) {
            int at = in.position();
            throw ApiException.badRequest("the body is not valid UTF-8: at byte offset " + at + " (counted from 0),"
                    + " expected a UTF-8 encoded character, got the byte" + (r.length() > 1 ? "s " : " ")
                    + hex(bytes, at, r.length()), "send the body as UTF-8 (JSON may write any character as"
                    + " \\uXXXX)");
        }
        return out.flip().toString();
    }

    private static String hex(byte[] bytes, int from, int length) {
        StringBuilder sb = new StringBuilder();
        for (int i = from; i < Math.min(bytes.length, from + length); i++) {
            sb.append(sb.isEmpty() ? "" : " ").append(String.format("0x%02X", bytes[i] & 0xff));
        }
        return sb.toString();
    }

    private static boolean hasNonFinite(JsonNode node) {
        if (node.isNumber()) {
            return !Double.isFinite(node.doubleValue());
        }
        for (JsonNode child : node) {
            if (hasNonFinite(child)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Refuses a number too large for a double ({@code 1e400}, which Jackson reads as Infinity: the checks of each
     * field then said 'got a number ("Infinity")', or took it), here where every body passes: named by its field,
     * as it was written, by the rule of {@link TypedNumbers}. Reads the body again, for the number as written.
     */
    private void refuseNonFinite(String body) throws JsonProcessingException {
        try (JsonParser p = mapper.createParser(body)) {
            for (JsonToken t = p.nextToken(); t != null; t = p.nextToken()) {
                if (t.isNumeric() && !Double.isFinite(p.getDoubleValue())) {
                    List<JsonStreamContext> path = new ArrayList<>();
                    for (JsonStreamContext c = p.getParsingContext(); c != null && !c.inRoot(); c = c.getParent()) {
                        path.add(0, c);
                    }
                    // named as the API names a field inside another (shards[3].units), up to a key that is no name
                    // (a what-if's share of 'lab/nlp'), which the problem then names
                    StringBuilder field = new StringBuilder();
                    StringBuilder inside = new StringBuilder();
                    for (JsonStreamContext c : path) {
                        String name = c.getCurrentName();
                        if (inside.isEmpty() && c.inArray() && !field.isEmpty()) {
                            field.append('[').append(c.getCurrentIndex()).append(']');
                        } else if (inside.isEmpty() && c.inObject() && name.matches("[A-Za-z_][A-Za-z0-9_-]*")) {
                            field.append(field.isEmpty() ? "" : ".").append(name);
                        } else {
                            inside.append(c.inArray() ? "[" + c.getCurrentIndex() + "]" : "'" + name + "'");
                        }
                    }
                    String problem = "expected " + TypedNumbers.FINITE + ", got " + TypedNumbers.shown(p.getText());
                    String hint = "GET /v1/openapi.json describes the field";
                    if (field.isEmpty()) {
                        throw ApiException.badRequest((inside.isEmpty() ? "" : "at " + inside + ": ") + problem, hint);
                    }
                    throw ApiException.badField(field.toString(), (inside.isEmpty() ? "" : inside + ": ") + problem,
                            hint);
                }
            }
        } catch (JsonProcessingException e) {
            throw e;
        } catch (java.io.IOException e) {
            throw new IllegalStateException("could not read the body again", e);
        }
        throw new IllegalStateException("a number beyond a double in the body that reading it again did not find");
    }

    /** The name of the duplicated field when Jackson refused the body for one, else null. */
    private static String duplicateField(JsonProcessingException e) {
        String m = e.getOriginalMessage();
        String marker = "Duplicate field '";
        if (m != null && m.startsWith(marker) && m.indexOf('\'', marker.length()) > 0) {
            return m.substring(marker.length(), m.indexOf('\'', marker.length()));
        }
        return null;
    }

    private static String firstLine(String s) {
        if (s == null) {
            return "unreadable";
        }
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    /** Answers with {@code body} as JSON and the status. */
    @Override
    public void json(Context ctx, int status, Object body) {
        byte[] bytes;
        try {
            bytes = mapper.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("could not write the answer as JSON", e);
        }
        ctx.status(status).contentType(JSON).result(bytes);
    }

}
