/**
 * The Allot service. Today: the durable store ({@code store}) and the backends that run the work
 * ({@code backend}: {@code local} processes and {@code simulated}), behind the core's
 * {@link dev.allot.core.backend.Backend} interface. The real-time scheduling loop, which runs the same core policy
 * code as the simulator, and the REST API come next.
 */
package dev.allot.server;
