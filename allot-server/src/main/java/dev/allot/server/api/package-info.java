/**
 * The service's REST API, version 1 ({@link dev.allot.server.api.ApiServer}): bearer-token authentication,
 * authorisation against the allocation tree, strict JSON input with field-naming errors, and a hand-written
 * OpenAPI document ({@code openapi.json} beside these classes). It reads and writes only through the
 * {@link dev.allot.server.store.Store}.
 */
package dev.allot.server.api;
