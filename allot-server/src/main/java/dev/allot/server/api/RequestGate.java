package dev.allot.server.api;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.jetty.http.HttpField;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.http.HttpHeaderValue;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Invocable;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every request passes before Javalin sees it, in front of the API's (blocking) servlet:
 *
 * <ul>
 *   <li>its method is one the API knows, in upper case ({@code get} is a 405, not a route);</li>
 *   <li>its path is already normal: no {@code .} or {@code ..} segment (also percent-encoded), no empty segment
 *       ({@code //}), no encoded {@code /} or {@code \}, no {@code ;} parameters, no control characters; a path that
 *       would change when normalised is a 400, so no permission check ever sees one path while the route acts on
 *       another;</li>
 *   <li>its body is read in full here, without holding a thread (Jetty calls back as bytes arrive), at most
 *       {@link HttpEndpoint.Limits#maxBodyBytes()} (else 413) and within {@link HttpEndpoint.Limits#bodyTimeout()}
 *       of the headers (else 408, and the connection is closed). A client that trickles or abandons a body thus
 *       holds a connection and its bytes, never one of the threads that answer everyone else. An abandoned body
 *       logs one line. The bodies arriving at once hold at most {@link HttpEndpoint.Limits#maxPendingBodyBytes()}
 *       together (else 429), so connections cannot fill the memory either.</li>
 * </ul>
 * Refusals go through {@link JsonErrorHandler}, as the API's JSON error.
 */
final class RequestGate extends Handler.Wrapper {
    private static final Logger LOG = LoggerFactory.getLogger(RequestGate.class);
    /** The methods the API (and Javalin's HEAD and OPTIONS handling) answers; anything else is a 405 here. */
    static final Set<String> METHODS = Set.of("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH");

    private final HttpEndpoint.Limits limits;
    /** Bytes of the bodies still arriving, all connections together (at most {@code maxPendingBodyBytes}). */
    private final java.util.concurrent.atomic.AtomicLong pending = new java.util.concurrent.atomic.AtomicLong();

    RequestGate(HttpEndpoint.Limits limits) {
        this.limits = limits;
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        long declared = -1;
        boolean body = false;
        for (HttpField field : request.getHeaders()) {
            if (field.getHeader() == HttpHeader.CONTENT_LENGTH) {
                declared = field.getLongValue();
                body = declared > 0;
            } else if (field.getHeader() == HttpHeader.TRANSFER_ENCODING
                    && field.contains(HttpHeaderValue.CHUNKED.asString())) {
                body = true;
            }
        }
        if (!body) {
            return checkThenHandle(request, response, callback);
        }
        if (declared > limits.maxBodyBytes()) {
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            Response.writeError(request, response, callback, 413, "Content-Length " + declared + " is more than "
                    + limits.maxBodyBytes() + " bytes");
            return true;
        }
        // The body is read before the request is judged, so a refusal is answered to a client that is done
        // sending (one still sending when the server closes may never see the answer).
        new BodyLoader(request, response, callback, declared).start();
        return true;
    }

    /** The method and path checks, then the API. */
    private boolean checkThenHandle(Request request, Response response, Callback callback) throws Exception {
        String method = request.getMethod();
        if (!METHODS.contains(method)) {
            response.getHeaders().put(HttpHeader.ALLOW, "GET, POST, PUT, DELETE");
            String why = METHODS.contains(method.toUpperCase(Locale.ROOT))
                    ? "'" + method + "' (methods are case-sensitive; use " + method.toUpperCase(Locale.ROOT) + ")"
                    : "'" + printable(method) + "' is not a method of this API";
            Response.writeError(request, response, callback, 405, why);
            return true;
        }
        String problem = pathProblem(request.getHttpURI().getPath());
        if (problem != null) {
            request.setAttribute(JsonErrorHandler.ERROR_FIELD, "path");
            Response.writeError(request, response, callback, 400, problem);
            return true;
        }
        return super.handle(request, response, callback);
    }

    /**
     * Why a raw (still percent-encoded) path is not normal, or null when it is. One trailing slash is allowed (the
     * router ignores it).
     */
    static String pathProblem(String rawPath) {
        if (rawPath == null || !rawPath.startsWith("/")) {
            return "the path must start with '/', got '" + printable(String.valueOf(rawPath)) + "'";
        }
        String path = rawPath.length() > 1 && rawPath.endsWith("/") ? rawPath.substring(0, rawPath.length() - 1)
                : rawPath;
        if (path.indexOf(';') >= 0 || path.indexOf('\\') >= 0) {
            return "the path must not contain ';' or '\\'";
        }
        if (path.length() == 1) {
            return null;
        }
        for (String segment : path.substring(1).split("/", -1)) {
            if (segment.isEmpty()) {
                return "the path has an empty segment ('//'); send it normalised";
            }
            String decoded = decode(segment);
            if (decoded == null) {
                return "the path has a malformed percent-encoding in segment '" + printable(segment) + "'";
            }
            if (decoded.equals(".") || decoded.equals("..")) {
                return "the path has a '" + decoded + "' segment; send it normalised (allocation names are never"
                        + " '.' or '..')";
            }
            if (decoded.indexOf('/') >= 0 || decoded.indexOf('\\') >= 0) {
                return "the path has an encoded '/' or '\\' in segment '" + printable(segment) + "'";
            }
            if (decoded.chars().anyMatch(Character::isISOControl)) {
                return "the path has a control character in segment '" + printable(segment) + "'";
            }
        }
        return null;
    }

    /** The percent-decoded segment (UTF-8), or null when its encoding is malformed. */
    private static String decode(String segment) {
        if (segment.indexOf('%') < 0) {
            return segment;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (int i = 0; i < segment.length(); i++) {
            char c = segment.charAt(i);
            if (c == '%') {
                if (i + 2 >= segment.length()) {
                    return null;
                }
                int hi = Character.digit(segment.charAt(i + 1), 16);
                int lo = Character.digit(segment.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                out.write(hi * 16 + lo);
                i += 2;
            } else {
                byte[] b = String.valueOf(c).getBytes(java.nio.charset.StandardCharsets.UTF_8);
                out.write(b, 0, b.length);
            }
        }
        return out.toString(java.nio.charset.StandardCharsets.UTF_8);
    }

    private static String printable(String s) {
        String t = s.length() > 80 ? s.substring(0, 80) + "..." : s;
        return t.replaceAll("\\p{Cntrl}", "?");
    }

    /**
     * Reads one request's body as Jetty delivers it (no thread waits), then hands the request, its body in memory,
     * to the servlet. Finishes once: with the next handler, a 413, a 408, or the client gone.
     */
    private final class BodyLoader implements Invocable.Task {
        private final Request request;
        private final Response response;
        private final Callback callback;
        private final ByteArrayOutputStream body;
        private final AtomicBoolean finished = new AtomicBoolean();
        /** This body's bytes counted in {@code pending}, given back when it stops arriving. */
        private final java.util.concurrent.atomic.AtomicLong counted = new java.util.concurrent.atomic.AtomicLong();
        private Scheduler.Task deadline;

        BodyLoader(Request request, Response response, Callback callback, long declared) {
            this.request = request;
            this.response = response;
            this.callback = callback;
            // grows as bytes arrive: a declared length alone reserves nothing
            this.body = new ByteArrayOutputStream((int) Math.max(32, Math.min(declared, 4 * 1024)));
        }

        void start() {
            deadline = request.getComponents().getScheduler().schedule(this::expire,
                    limits.bodyTimeout().toMillis(), TimeUnit.MILLISECONDS);
            read(false);
        }

        @Override
        public InvocationType getInvocationType() {
            return InvocationType.NON_BLOCKING;
        }

        /** Called by Jetty when more of the body can be read. */
        @Override
        public void run() {
            read(true);
        }

        private void read(boolean fromDemand) {
            while (!finished.get()) {
                Content.Chunk chunk = request.read();
                if (chunk == null) {
                    request.demand(this);
                    return;
                }
                if (Content.Chunk.isFailure(chunk)) {
                    abandoned(chunk.getFailure());
                    return;
                }
                ByteBuffer bytes = chunk.getByteBuffer();
                int n = bytes.remaining();
                if (body.size() + (long) n > limits.maxBodyBytes()) {
                    chunk.release();
                    finish(413, "the body is more than " + limits.maxBodyBytes() + " bytes");
                    return;
                }
                if (pending.addAndGet(n) > limits.maxPendingBodyBytes()) {
                    pending.addAndGet(-n);
                    chunk.release();
                    LOG.warn("request body refused: {} {} from {}: the bodies arriving hold {} bytes, at most {}",
                            request.getMethod(), request.getHttpURI().getPath(), Request.getRemoteAddr(request),
                            pending.get(), limits.maxPendingBodyBytes());
                    finish(429, "the server is receiving too many request bodies at once");
                    return;
                }
                counted.addAndGet(n);
                if (finished.get()) { // the deadline ended it meanwhile: give the bytes back
                    release();
                }
                if (bytes.hasArray()) {
                    body.write(bytes.array(), bytes.arrayOffset() + bytes.position(), n);
                } else {
                    byte[] copy = new byte[n];
                    bytes.get(copy);
                    body.write(copy, 0, n);
                }
                boolean last = chunk.isLast();
                chunk.release();
                if (last) {
                    if (finished.compareAndSet(false, true)) {
                        deadline.cancel();
                        release();
                        if (fromDemand) {
                            request.getContext().execute(this::dispatch); // the servlet may block: not on this thread
                        } else {
                            dispatch();
                        }
                    }
                    return;
                }
            }
        }

        private void release() {
            pending.addAndGet(-counted.getAndSet(0));
        }

        private void dispatch() {
            Request buffered = new BufferedBody(request, body.toByteArray());
            try {
                if (!checkThenHandle(buffered, response, callback)) {
                    Response.writeError(buffered, response, callback, 404);
                }
            } catch (Throwable t) {
                Response.writeError(buffered, response, callback, t);
            }
        }

        private void expire() {
            if (finished.get()) {
                return;
            }
            LOG.info("request body abandoned: {} {} from {}: {} bytes in {} ms, not complete; answered 408 and closed",
                    request.getMethod(), request.getHttpURI().getPath(), Request.getRemoteAddr(request), body.size(),
                    limits.bodyTimeout().toMillis());
            finish(408, "the body was not complete " + limits.bodyTimeout().toMillis() + " ms after the headers");
        }

        /**
         * The body will not come: the client went silent past the idle timeout (answered 408, connection closed) or
         * the connection ended (nobody to answer). One line either way.
         */
        private void abandoned(Throwable failure) {
            String why = failure == null ? "the connection ended" : failure.getClass().getSimpleName()
                    + (failure.getMessage() == null ? "" : " " + failure.getMessage());
            if (failure instanceof java.util.concurrent.TimeoutException) {
                if (!finished.get()) {
                    LOG.info("request body abandoned: {} {} from {} after {} bytes: silent for {} ms; answered 408 and"
                            + " closed", request.getMethod(), request.getHttpURI().getPath(),
                            Request.getRemoteAddr(request), body.size(), limits.idleTimeout().toMillis());
                }
                finish(408, "nothing of the body arrived for " + limits.idleTimeout().toMillis() + " ms");
                return;
            }
            if (!finished.compareAndSet(false, true)) {
                return;
            }
            deadline.cancel();
            release();
            LOG.info("request body abandoned: {} {} from {} after {} bytes: {}", request.getMethod(),
                    request.getHttpURI().getPath(), Request.getRemoteAddr(request), body.size(), why);
            callback.failed(failure == null ? new java.io.EOFException("request body abandoned") : failure);
        }

        private void finish(int status, String reason) {
            if (!finished.compareAndSet(false, true)) {
                return;
            }
            release();
            if (deadline != null) {
                deadline.cancel();
            }
            response.getHeaders().put(HttpHeader.CONNECTION, HttpHeaderValue.CLOSE.asString());
            Response.writeError(request, response, callback, status, reason);
        }
    }

    /** A request whose body was read in full: reads answer it from memory. */
    private static final class BufferedBody extends Request.Wrapper {
        private Content.Chunk chunk;

        BufferedBody(Request wrapped, byte[] body) {
            super(wrapped);
            this.chunk = Content.Chunk.from(ByteBuffer.wrap(body), true);
        }

        @Override
        public synchronized Content.Chunk read() {
            Content.Chunk c = chunk;
            chunk = Content.Chunk.EOF;
            return c;
        }

        @Override
        public void demand(Runnable demandCallback) {
            demandCallback.run();
        }

        @Override
        public boolean consumeAvailable() {
            return true;
        }
    }
}
