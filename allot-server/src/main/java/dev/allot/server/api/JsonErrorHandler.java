package dev.allot.server.api;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.nio.ByteBuffer;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.util.Callback;

/**
 * Jetty's error page, replaced by the API's error body ({@link ApiError}): what Jetty answers itself, before Javalin
 * sees the request (a request line or headers too large, a malformed request, a refused URI, a body too large or
 * too slow, a method or path the {@link RequestGate} refuses), is the same JSON a client gets from every other
 * error. Never a stack trace; a 5xx only for the server's own faults (Jetty's 501 and 505, which are about the
 * client's request, become 400s).
 */
final class JsonErrorHandler extends ErrorHandler {
    private static final ObjectMapper MAPPER = JsonMapper.builder().build();

    /** A request attribute naming the part of the request an error is about (the gate sets {@code path}). */
    static final String ERROR_FIELD = "allot.error.field";

    private final HttpEndpoint.Limits limits;

    JsonErrorHandler(HttpEndpoint.Limits limits) {
        this.limits = limits;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) {
        int status = response.getStatus();
        Object message = request.getAttribute(ERROR_MESSAGE);
        if (status == 501 || status == 505) {
            // Jetty's parser says 501 for a transfer coding and 505 for an HTTP version it does not know: the
            // request is the client's fault, and no request gets a 5xx.
            message = (status == 505 ? "unsupported HTTP version" : "unsupported transfer coding")
                    + (message instanceof String s && !s.isBlank() ? " (" + s + ")" : "");
            status = 400;
            response.setStatus(status);
        }
        response.getHeaders().put(HttpHeader.CACHE_CONTROL, "no-store");
        // Jetty closes a connection after a request it could not parse; say so, or a keep-alive client sends its
        // next request into the closed connection and gets no answer at all.
        response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
        if (HttpStatus.hasNoBody(status) || "HEAD".equals(request.getMethod())) {
            callback.succeeded();
            return true;
        }
        Object field = request.getAttribute(ERROR_FIELD);
        if (status == 400 && detail(message instanceof String s ? s : null).isEmpty()) {
            String why = uriProblem(request);
            if (why != null) { // Jetty refuses such a URI without a reason of its own
                message = why;
                field = "path";
            }
        }
        byte[] body = body(status, message instanceof String s ? s : null, field instanceof String f ? f : null);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, "application/json");
        response.getHeaders().put(HttpHeader.CONTENT_LENGTH, body.length);
        response.write(true, ByteBuffer.wrap(body), callback);
        return true;
    }

    /** The JSON error for a status Jetty (or the gate) decided, with its reason when it gave one. */
    byte[] body(int status, String reason) {
        return body(status, reason, null);
    }

    /** The same, naming the part of the request at fault ({@code field}) when the gate said which. */
    byte[] body(int status, String reason, String field) {
        ApiError error = switch (status) {
            case 400 -> new ApiError("bad request" + detail(earlyEof(reason)), field,
                    "GET /v1/openapi.json describes the requests the API takes");
            case 404 -> new ApiError("no such endpoint", null, "GET /v1/openapi.json lists the endpoints");
            case 405 -> new ApiError("method not allowed" + detail(reason), null,
                    "methods are GET, POST, PUT and DELETE, in upper case; GET /v1/openapi.json lists the endpoints");
            case 408 -> new ApiError("the request body did not arrive in time" + detail(reason), null,
                    "send the whole body within " + limits.bodyTimeout().toMillis() + " ms of the headers, without"
                            + " pausing " + limits.idleTimeout().toMillis() + " ms");
            case 413 -> new ApiError("request body too large" + detail(reason), null,
                    "the API takes bodies of at most " + limits.maxBodyBytes() + " bytes; split large batches");
            case 429 -> new ApiError("too many requests" + detail(reason), null, "retry in a moment");
            case 414 -> new ApiError("request URI too long", null,
                    "the request line and headers may take at most " + limits.maxHeaderBytes() + " bytes");
            case 431 -> new ApiError("request headers too large", null,
                    "the request line and headers may take at most " + limits.maxHeaderBytes() + " bytes");
            default -> status >= 500
                    ? new ApiError("internal server error; the server logged the details", null, null)
                    : new ApiError(HttpStatus.getMessage(status) + detail(reason), null, null);
        };
        try {
            return MAPPER.writeValueAsBytes(error);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("could not write an error as JSON", e);
        }
    }

    /**
     * Why Jetty refused the request's URI, from the exception behind its 400 ("Illegal character in path" for a
     * {@code %00}, a bad percent-escape such as {@code %ZZ}), or null when no URI problem is known: Jetty's own
     * message says only "Bad Request", and the URI it hands on is replaced by {@code /badMessage}.
     */
    static String uriProblem(Request request) {
        Object ex = request.getAttribute(ERROR_EXCEPTION);
        for (Throwable t = ex instanceof Throwable th ? th : null; t != null; t = t.getCause()) {
            if (t instanceof IllegalArgumentException && t.getMessage() != null
                    && t.getMessage().matches("(?is).*(path|uri|encod|hex|%).*")) { // not a header's fault, say
                return "the URI is not valid (" + t.getMessage().replaceAll("\\p{Cntrl}", "?") + "): a"
                        + " percent-escape is % and two hex digits (write % as %25) and may not encode a control"
                        + " character such as NUL (%00)";
            }
        }
        return null;
    }

    /**
     * Jetty's "Early EOF", in words: the connection ended before the body it announced had come (the length its
     * Content-Length declared, or the last chunk of a chunked body).
     */
    static String earlyEof(String reason) {
        return reason != null && reason.strip().equalsIgnoreCase("Early EOF") ? EARLY_EOF : reason;
    }

    /** What {@link #earlyEof} says. */
    static final String EARLY_EOF = "the body ended before its declared length (Content-Length) or its last chunk"
            + " (Transfer-Encoding: chunked)";

    /** Jetty's reason, when it says more than the status's own name. */
    private static String detail(String reason) {
        if (reason == null || reason.isBlank()
                || java.util.Arrays.stream(HttpStatus.Code.values()).anyMatch(c -> c.getMessage().equalsIgnoreCase(reason))) {
            return ""; // only the status's own name, such as "Bad Request"
        }
        String r = reason.length() > 200 ? reason.substring(0, 200) + "..." : reason;
        return ": " + r.replaceAll("\\p{Cntrl}", "?");
    }
}
