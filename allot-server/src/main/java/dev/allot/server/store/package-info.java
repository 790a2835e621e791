/**
 * The service's durable store: everything needed to resume after a crash (workloads and their attempts, the
 * allocation tree, users and tokens, nodes, the audit trail), in embedded SQLite by default or in PostgreSQL.
 * Every {@link dev.allot.server.store.Store} method is one transaction and is durable when it returns, so the
 * API may acknowledge a request as soon as the store call has returned.
 */
package dev.allot.server.store;
