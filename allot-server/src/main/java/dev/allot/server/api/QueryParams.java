package dev.allot.server.api;

import java.util.List;
import java.util.Map;

/**
 * Reading query parameters the way every endpoint does: each at most once and not blank, numbers whole and within
 * their bounds, a 400 naming the parameter otherwise. Shared by {@link ApiServer}'s workload and timeline handlers
 * and {@link AllocationsApi}'s audit and usage. And the one rule for which an endpoint takes: a parameter it does not
 * take is a 400 naming it, never ignored ({@link #only}, {@link #none}; ignored, '/v1/nodes?state=bad' answered as if
 * asked nothing while '/v1/queue?state=bad' was refused).
 */
final class QueryParams {
    private QueryParams() {
    }

    /** The parameter's one non-blank value, or null when absent; a 400 when given twice or blank. */
    static String single(Map<String, List<String>> params, String name) {
        List<String> values = params.get(name);
        if (values == null) {
            return null;
        }
        if (values.size() != 1 || values.get(0).isBlank()) {
            throw ApiException.badField(name, "expected one non-blank value, got " + values.size() + " values"
                    + (values.size() == 1 ? " (blank)" : ""), "give " + name + " once, or not at all for any");
        }
        return values.get(0);
    }

    /** The parameter as a whole number in [min, max], or {@code absent} when not given; a 400 otherwise. */
    static long number(Map<String, List<String>> params, String name, long min, long max, long absent) {
        String text = single(params, name);
        if (text == null) {
            return absent;
        }
        try {
            long n = Long.parseLong(text.trim());
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // fall through to the error below
        }
        throw ApiException.badField(name, "expected a whole number between " + min + " and " + max + ", got '" + text + "'",
                null);
    }


    /** Refuses any parameter not in {@code known}; {@code hint} says which the endpoint takes. */
    static void only(io.javalin.http.Context ctx, java.util.Collection<String> known, String hint) {
        percentEncoded(ctx.queryString());
        for (String name : ctx.queryParamMap().keySet()) {
            if (name.isEmpty()) { // '?=x' or '?a=1&&b=2': it said "field '': unknown query parameter"
                throw ApiException.badRequest("a query parameter without a name ('=' or '&' with nothing before it)",
                        hint);
            }
            if (!known.contains(name)) {
                throw ApiException.badField(name, "unknown query parameter", hint);
            }
        }
    }

    /**
     * Refuses a query that is not valid percent-encoding ({@code %ZZ}, {@code %2} at the end, escapes that are not
     * UTF-8), naming the parameter: decoded leniently, {@code ?allocation=%ZZ} came as a blank value and was refused
     * as "expected one non-blank value", which is not what was wrong.
     */
    static void percentEncoded(String query) {
        if (query == null || query.indexOf('%') < 0) {
            return;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
            for (int i = 0; i < pair.length(); i++) {
                char c = pair.charAt(i);
                if (c != '%') {
                    bytes.write(c == '+' ? ' ' : c);
                    continue;
                }
                int hi = i + 1 < pair.length() ? Character.digit(pair.charAt(i + 1), 16) : -1;
                int lo = i + 2 < pair.length() ? Character.digit(pair.charAt(i + 2), 16) : -1;
                if (hi < 0 || lo < 0 || pair.charAt(i + 1) > 'f' || pair.charAt(i + 2) > 'f') {
                    String got = pair.substring(i, Math.min(pair.length(), i + 3));
                    throw badEncoding(name, "'" + got + "' in '" + pair + "' is not % and two hex digits (write %"
                            + " as %25)");
                }
                bytes.write(hi * 16 + lo);
                i += 2;
            }
            try {
                java.nio.charset.StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                        .decode(java.nio.ByteBuffer.wrap(bytes.toByteArray()));
            } catch (java.nio.charset.CharacterCodingException e) {
                throw badEncoding(name, "'" + pair + "' decodes to bytes that are not UTF-8");
            }
        }
    }

    private static ApiException badEncoding(String name, String problem) {
        String hint = "escape each byte of the UTF-8 text as % and two hex digits, e.g. lab%2Fnlp for lab/nlp";
        String message = "the query is not valid percent-encoding: " + problem;
        return name.isEmpty() || name.indexOf('%') >= 0 ? ApiException.badRequest(message, hint)
                : new ApiException(400, message, name, hint);
    }

    /** Refuses any parameter at all: {@code endpoint} (e.g. {@code GET /v1/nodes}) takes none. */
    static void none(io.javalin.http.Context ctx, String endpoint) {
        only(ctx, List.of(), endpoint + " takes none");
    }
}
