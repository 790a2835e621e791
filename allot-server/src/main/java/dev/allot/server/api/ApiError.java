package dev.allot.server.api;

/**
 * The body of every error answer: what went wrong, the request field it is about (null when none) and a hint
 * on how to fix it (null when none helps). One shape for every status so a client needs one error parser.
 */
record ApiError(String error, String field, String hint) {
}
