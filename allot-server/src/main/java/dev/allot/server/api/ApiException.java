package dev.allot.server.api;

import dev.allot.core.rules.Violation;
import java.util.List;

/**
 * A request the API refuses, with the HTTP status to answer and what to tell the client: the problem, the
 * offending field (null when the problem is not about one field), a hint (null when none helps) and, for bad
 * field values, every rule broken. The server turns it into the error body {@code {"error", "field", "hint",
 * "violations"}} ({@link ApiError}); anything else thrown by a handler is a bug and
 * becomes a 500 with a generic message.
 */
final class ApiException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String field;
    private final String hint;
    private final transient List<Violation> violations;

    ApiException(int status, String problem, String field, String hint) {
        this(status, problem, field, hint, List.of());
    }

    ApiException(int status, String problem, String field, String hint, List<Violation> violations) {
        super(problem);
        this.status = status;
        this.field = field;
        this.hint = hint;
        this.violations = List.copyOf(violations);
    }

    /**
     * 400: the request breaks these rules (at least one); the message tells them all, the field is the first's,
     * and the body lists each with its field, what was expected and what came.
     */
    static ApiException violations(List<Violation> violations, String hint) {
        if (violations.isEmpty()) {
            throw new IllegalArgumentException("no violations");
        }
        return new ApiException(400, Violation.join(violations), violations.get(0).field(), hint, violations);
    }

    /** 400: the request names a field whose value is missing, of the wrong type or out of range. */
    static ApiException badField(String field, String problem, String hint) {
        return new ApiException(400, "field '" + field + "': " + problem, field, hint);
    }

    /** 400: the request as a whole is malformed (not JSON, not an object). */
    static ApiException badRequest(String problem, String hint) {
        return new ApiException(400, problem, null, hint);
    }

    /**
     * 400: a filter names an allocation that is not in the tree ({@code paths}, sorted), as {@code GET /v1/queue} and
     * {@code GET /v1/workloads} both answer it.
     */
    static ApiException unknownAllocationFilter(String allocation, List<String> paths) {
        return badField("allocation", "unknown allocation '" + allocation + "'", "expected an allocation path of the"
                + " tree (it selects that allocation and everything below it): " + String.join(", ", paths));
    }

    static ApiException unauthorized(String problem) {
        return unauthorized(problem,
                "send the header 'Authorization: Bearer <token>' with a token an administrator gave you");
    }

    private static final String ENABLE = "ask an administrator to enable it: ";

    /** The hint for a token of a disabled user: only an administrator can enable it, and how. */
    static String enableHint(String user) {
        return ENABLE + "PUT /v1/users/" + user + " {\"disabled\": false}";
    }

    /** Whether this is the refusal of a disabled user's token ({@link #enableHint}), which signing in again won't fix. */
    boolean refusesDisabledUser() {
        return status == 401 && hint != null && hint.startsWith(ENABLE);
    }

    static ApiException unauthorized(String problem, String hint) {
        return new ApiException(401, problem, null, hint);
    }

    /**
     * The hint for an expired token: an expired token cannot make another, so another live token of the same user
     * can, or an administrator. It names no user: the refusal says no more about who held the token than it did (that
     * the token is known and when it expired), so an old token found in a log or a script tells nothing more.
     */
    static final String EXPIRED_TOKEN_HINT = "an expired token cannot make another: with another token of yours that"
            + " has not expired, 'allot token create' makes a new one; else ask an administrator to run 'allot token"
            + " create --user <your user name>'";

    /** The hint for the dashboard's session cookie, where a bearer header is not what the browser can send. */
    static final String SIGN_IN_HINT = "sign in again on the dashboard's page /signin with an API token (allot token"
            + " create makes one; an administrator can make one for you)";

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

    /** Every rule the request broke; empty when the error is not about its fields' values. */
    List<Violation> violations() {
        return violations;
    }

    /** The same error about element {@code at} of a list (e.g. {@code workloads[3]}): fields are prefixed. */
    ApiException within(String at) {
        List<Violation> inner = violations.stream()
                .map(v -> new Violation(at + "." + v.field(), v.expected(), v.got())).toList();
        return new ApiException(status, at + ": " + getMessage(), field == null ? at : at + "." + field, hint, inner);
    }
}
