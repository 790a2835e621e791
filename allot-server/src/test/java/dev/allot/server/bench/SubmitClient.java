package dev.allot.server.bench;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The client half of {@code tools/bench-service.sh submit --client-process}: single submissions
 * ({@code POST /v1/workloads}, one workload each) from {@code threads} keep-alive HTTP/1.1 connections, one per thread,
 * run in a JVM of its own so that the service's numbers are the service's (its heap, its collector, its JIT), as a
 * real client's would be. It speaks just enough HTTP/1.1 over a plain socket (a request with a {@code Content-Length},
 * an answer read to its {@code Content-Length} or its chunks), like {@code wrk} or {@code ab}, so that it takes as
 * little CPU as it can: on two cores, the client's CPU is taken from the server's.
 * Counts an answer that is not 201 as an error (and prints the first one); asserts nothing.
 *
 * <p>Arguments: {@code URL TOKEN SUBMISSIONS THREADS WARMUP BODY}; prints one line starting {@code (a)}.
 */
public final class SubmitClient {
    /** The line printed when the warm-up is over and the measured submissions begin. */
    static final String WARM = "(a) warm-up done";

    private SubmitClient() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 6) {
            System.err.println("usage: SubmitClient URL TOKEN SUBMISSIONS THREADS WARMUP BODY");
            System.exit(2);
        }
        URI uri = URI.create(args[0]);
        String token = args[1];
        int n = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        int warmup = Integer.parseInt(args[4]);
        byte[] body = args[5].getBytes(StandardCharsets.UTF_8);
        byte[] request = ("POST " + uri.getRawPath() + " HTTP/1.1\r\nHost: " + uri.getHost() + ":" + uri.getPort()
                + "\r\nAuthorization: Bearer " + token + "\r\nContent-Type: application/json\r\nContent-Length: "
                + body.length + "\r\n\r\n" + args[5]).getBytes(StandardCharsets.UTF_8);
        run(uri, request, Math.max(1, warmup), threads, new long[Math.max(1, warmup)]);
        System.out.println(WARM);
        System.out.flush();
        long[] latencies = new long[n];
        long cpu0 = ServiceBench.processCpuNanos();
        long t0 = System.nanoTime();
        int errors = run(uri, request, n, threads, latencies);
        long elapsed = System.nanoTime() - t0;
        long cpu = ServiceBench.processCpuNanos() - cpu0;
        Arrays.sort(latencies);
        System.out.printf("(a) single submissions from a separate client process, %d connections: %d in %.2f s ="
                        + " %.0f submissions/s; request latency p50 %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms;"
                        + " %d errors; the client's CPU %.0f us per submission%n", threads, n, elapsed / 1e9,
                n / (elapsed / 1e9), ServiceBench.pct(latencies, 50) / 1e6, ServiceBench.pct(latencies, 90) / 1e6,
                ServiceBench.pct(latencies, 99) / 1e6, latencies[n - 1] / 1e6, errors, cpu / 1e3 / n);
    }

    /** Sends {@code n} requests from {@code threads} connections; the number of answers that were not 201. */
    private static int run(URI uri, byte[] request, int n, int threads, long[] latencies) throws Exception {
        AtomicInteger next = new AtomicInteger();
        AtomicInteger errors = new AtomicInteger();
        CountDownLatch done = new CountDownLatch(threads);
        for (int t = 0; t < threads; t++) {
            Thread th = new Thread(() -> {
                try (Connection c = new Connection(uri)) {
                    for (int i = next.getAndIncrement(); i < n; i = next.getAndIncrement()) {
                        long s = System.nanoTime();
                        int status = c.send(request);
                        latencies[i] = System.nanoTime() - s;
                        if (status != 201 && errors.getAndIncrement() == 0) {
                            System.out.println("(a) first error: " + status + " " + c.lastBody());
                        }
                    }
                } catch (IOException e) {
                    errors.incrementAndGet();
                    System.out.println("(a) a connection failed: " + e);
                } finally {
                    done.countDown();
                }
            }, "submit-client-" + t);
            th.start();
        }
        done.await();
        return errors.get();
    }

    /** One keep-alive connection: a request written whole, its answer read to the end of its body. */
    private static final class Connection implements AutoCloseable {
        private final Socket socket;
        private final OutputStream out;
        private final InputStream in;
        private byte[] body = new byte[0];

        Connection(URI uri) throws IOException {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(uri.getHost(), uri.getPort()), 10_000);
            socket.setSoTimeout(60_000);
            out = socket.getOutputStream();
            in = new BufferedInputStream(socket.getInputStream(), 16_384);
        }

        int send(byte[] request) throws IOException {
            out.write(request);
            out.flush();
            String status = line();
            if (!status.startsWith("HTTP/1.1 ") || status.length() < 12) {
                throw new IOException("not an HTTP/1.1 answer: " + status);
            }
            int code = Integer.parseInt(status.substring(9, 12));
            int length = -1;
            boolean chunked = false;
            for (String h = line(); !h.isEmpty(); h = line()) {
                int colon = h.indexOf(':');
                String name = colon > 0 ? h.substring(0, colon).trim() : "";
                if (name.equalsIgnoreCase("Content-Length")) {
                    length = Integer.parseInt(h.substring(colon + 1).trim());
                } else if (name.equalsIgnoreCase("Transfer-Encoding")) {
                    chunked = h.substring(colon + 1).trim().equalsIgnoreCase("chunked");
                }
            }
            if (chunked) {
                java.io.ByteArrayOutputStream all = new java.io.ByteArrayOutputStream();
                for (int size = Integer.parseInt(line().trim(), 16); size > 0; size = Integer.parseInt(line().trim(), 16)) {
                    all.write(exactly(size));
                    line(); // the chunk's CRLF
                }
                line(); // the last chunk's CRLF (no trailers)
                body = all.toByteArray();
            } else if (length >= 0) {
                body = exactly(length);
            } else {
                throw new IOException("an answer without Content-Length or chunks (status " + code + ")");
            }
            return code;
        }

        private byte[] exactly(int length) throws IOException {
            byte[] b = in.readNBytes(length);
            if (b.length != length) {
                throw new IOException("the connection closed inside an answer");
            }
            return b;
        }

        String lastBody() {
            return new String(body, StandardCharsets.UTF_8);
        }

        private String line() throws IOException {
            StringBuilder s = new StringBuilder(64);
            for (int b = in.read(); b != '\n'; b = in.read()) {
                if (b < 0) {
                    throw new IOException("the connection closed");
                }
                if (b != '\r') {
                    s.append((char) b);
                }
            }
            return s.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }
}
