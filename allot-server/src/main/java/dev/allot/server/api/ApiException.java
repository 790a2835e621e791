package dev.allot.server.api;

/**
 * A request the API refuses, with the HTTP status to answer and what to tell the client: the problem, the
 * offending field (null when the problem is not about one field) and a hint (null when none helps). The server
 * turns it into the error body {@code {"error", "field", "hint"}}; anything else thrown by a handler is a bug and
 * becomes a 500 with a generic message.
 */
final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String field;
    private final String hint;

    ApiException(int status, String problem, String field, String hint) {
        super(problem);
        this.status = status;
        this.field = field;
        this.hint = hint;
    }

    /** 400: the request names a field whose value is missing, of the wrong type or out of range. */
    static ApiException badField(String field, String problem, String hint) {
        return new ApiException(400, "field '" + field + "': " + problem, field, hint);
    }

    /** 400: the request as a whole is malformed (not JSON, not an object). */
    static ApiException badRequest(String problem, String hint) {
        return new ApiException(400, problem, null, hint);
    }

    static ApiException unauthorized(String problem) {
        return new ApiException(401, problem, null,
                "send the header 'Authorization: Bearer <token>' with a token an administrator gave you");
    }

    static ApiException forbidden(String problem, String hint) {
        return new ApiException(403, problem, null, hint);
    }

    static ApiException notFound(String problem, String hint) {
        return new ApiException(404, problem, null, hint);
    }

    int status() {
        return status;
    }

    String field() {
        return field;
    }

    String hint() {
        return hint;
    }
}
