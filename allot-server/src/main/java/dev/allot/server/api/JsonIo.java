package dev.allot.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.json.JsonReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import io.javalin.http.Context;

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
        try {
            return mapper.readTree(ctx.body());
        } catch (JsonProcessingException e) {
            String where = e.getLocation() == null ? ""
                    : " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
            String field = duplicateField(e);
            if (field != null) {
                throw ApiException.badField(field, "given twice", "send each field once");
            }
            throw ApiException.badRequest("malformed JSON" + where + ": "
                    + firstLine(dev.allot.sim.input.ParserMessages.plain(e.getOriginalMessage())),
                    "the body must be one JSON object; GET /v1/openapi.json describes it");
        }
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
