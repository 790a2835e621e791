package dev.allot.server.api;

import dev.allot.core.rules.Violation;
import java.util.List;

/**
 * The body of every error answer: what went wrong, the request field it is about (null when none) and a hint
 * on how to fix it (null when none helps). One shape for every status so a client needs one error parser.
 * {@code violations} lists every rule the request broke, each with its field, what was expected and what came
 * (empty when the error is not about the request's fields); {@code error} and {@code field} then tell the first.
 */
record ApiError(String error, String field, String hint, List<Problem> violations) {
    ApiError {
        violations = violations == null ? List.of() : List.copyOf(violations);
    }

    ApiError(String error, String field, String hint) {
        this(error, field, hint, List.of());
    }

    /** One broken rule, as the body lists it. */
    record Problem(String field, String expected, String got) {
        static Problem of(Violation v) {
            return new Problem(v.field(), v.expected(), v.got());
        }
    }

    static List<Problem> of(List<Violation> violations) {
        return violations.stream().map(Problem::of).toList();
    }
}
