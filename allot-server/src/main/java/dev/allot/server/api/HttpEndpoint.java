package dev.allot.server.api;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * Where and how the API listens: the address and port it binds, the TLS key store when it serves HTTPS
 * ({@link PemKeyStore}), and the limits that keep slow or oversized requests from starving it ({@link Limits}).
 * Loopback, plain HTTP, the default limits unless told otherwise.
 *
 * @param bindAddress an IP address or host name of this machine; {@value #LOOPBACK} by default
 * @param port        0 for any free port
 * @param tls         the key store to serve HTTPS with; null for plain HTTP
 * @param limits      the request limits
 */
public record HttpEndpoint(String bindAddress, int port, KeyStore tls, Limits limits) {
    public static final String LOOPBACK = "127.0.0.1";

    public HttpEndpoint {
        Objects.requireNonNull(bindAddress, "bindAddress");
        Objects.requireNonNull(limits, "limits");
        if (bindAddress.isBlank()) {
            throw new IllegalArgumentException("the bind address must not be blank (default " + LOOPBACK + ")");
        }
        if (port < 0 || port > 65_535) {
            throw new IllegalArgumentException("port must be between 0 (any free port) and 65535, got " + port);
        }
    }

    /** Plain HTTP on loopback with the default limits. */
    public static HttpEndpoint loopback(int port) {
        return new HttpEndpoint(LOOPBACK, port, null, Limits.defaults());
    }

    public HttpEndpoint withLimits(Limits l) {
        return new HttpEndpoint(bindAddress, port, tls, l);
    }

    public String scheme() {
        return tls == null ? "http" : "https";
    }

    /** True when the address is a loopback one, so only this machine can reach the API. */
    public boolean loopbackOnly() {
        try {
            return InetAddress.getByName(bindAddress).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    /**
     * The warning to give at start when tokens would cross the network in the clear (a non-loopback address without
     * TLS); empty otherwise.
     */
    public Optional<String> plainTextWarning() {
        if (tls != null || loopbackOnly()) {
            return Optional.empty();
        }
        return Optional.of("the API listens on " + bindAddress + " over plain HTTP: API tokens cross the network"
                + " unencrypted; serve HTTPS with --tls-cert FILE --tls-key FILE, or bind " + LOOPBACK);
    }

    /**
     * What one connection and one request may take.
     *
     * @param maxBodyBytes        a request body larger is refused (413) without being read in full
     * @param maxHeaderBytes      the request line and headers together; a longer URI is a 414, larger headers a 431
     * @param idleTimeout         a connection silent this long is closed
     * @param bodyTimeout         a request body not complete this long after its headers is refused (408) and its
     *                            connection closed, however steadily it trickles
     * @param maxConnections      connections open at once; beyond, new ones wait in the kernel's accept queue
     * @param maxThreads          threads answering requests; bodies are read before a request takes one
     * @param maxPendingBodyBytes the bytes of all bodies still arriving, together; a body that would pass it is
     *                            refused (429) so that many connections cannot fill the memory with partial bodies
     */
    public record Limits(long maxBodyBytes, int maxHeaderBytes, Duration idleTimeout, Duration bodyTimeout,
                         int maxConnections, int maxThreads, long maxPendingBodyBytes) {
        public Limits {
            Objects.requireNonNull(idleTimeout, "idleTimeout");
            Objects.requireNonNull(bodyTimeout, "bodyTimeout");
            if (maxBodyBytes < 1 || maxHeaderBytes < 1024 || maxConnections < 1 || maxThreads < 8
                    || maxPendingBodyBytes < maxBodyBytes) {
                throw new IllegalArgumentException("limits out of range: body " + maxBodyBytes + " bytes, headers "
                        + maxHeaderBytes + " bytes (>= 1024), connections " + maxConnections + ", threads "
                        + maxThreads + " (>= 8), pending bodies " + maxPendingBodyBytes + " bytes (>= one body)");
            }
            if (idleTimeout.isNegative() || idleTimeout.isZero() || bodyTimeout.isNegative() || bodyTimeout.isZero()) {
                throw new IllegalArgumentException("timeouts must be positive, got idle " + idleTimeout + ", body "
                        + bodyTimeout);
            }
        }

        /**
         * 1 MB bodies (a batch of 1,000 submissions fits), 8 KiB of headers, 30 s idle, 30 s for a whole body,
         * 4,096 connections, 200 threads, 64 MB of bodies arriving at once.
         */
        public static Limits defaults() {
            return new Limits(1_000_000, 8 * 1024, Duration.ofSeconds(30), Duration.ofSeconds(30), 4_096, 200,
                    64_000_000);
        }

        public Limits withPendingBodyBytes(long bytes) {
            return new Limits(maxBodyBytes, maxHeaderBytes, idleTimeout, bodyTimeout, maxConnections, maxThreads,
                    bytes);
        }
    }
}
