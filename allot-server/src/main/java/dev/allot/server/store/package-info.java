/**
 * The service's durable store: everything needed to resume after a crash (workloads and their attempts, the
 * allocation tree, users and tokens, nodes, the audit trail), in embedded SQLite by default or in PostgreSQL.
 * The {@link dev.allot.server.store.Store} opens the database and hands out its parts (workloads, attempts,
 * allocations, access, nodes); every method of a part is one transaction and is durable when it returns, so the
 * API may acknowledge a request as soon as the store call has returned.
 */
package dev.allot.server.store;
