package dev.allot.server.api;

import io.javalin.config.JavalinConfig;
import org.eclipse.jetty.server.HttpConfiguration;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.NetworkConnectionLimit;
import org.eclipse.jetty.server.SecureRequestCustomizer;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.SslConnectionFactory;
import org.eclipse.jetty.util.ssl.SslContextFactory;
import org.eclipse.jetty.util.thread.QueuedThreadPool;

/**
 * The API's Jetty, set up to be exposed: one connector on the {@link HttpEndpoint}'s address (HTTPS with its key
 * store, else HTTP), the request limits (header size, idle timeout, connections, threads), the {@link RequestGate}
 * in front of Javalin (methods, normalised paths, bodies read without a thread, bounded in size and time) and the
 * {@link JsonErrorHandler} for what Jetty answers itself. Javalin's routes and handlers stay in {@link ApiServer}.
 */
final class HttpHardening {
    private HttpHardening() {
    }

    static void apply(JavalinConfig config, HttpEndpoint endpoint) {
        HttpEndpoint.Limits limits = endpoint.limits();
        QueuedThreadPool threads = new QueuedThreadPool(limits.maxThreads(), Math.min(8, limits.maxThreads()));
        threads.setName("allot-api");
        config.jetty.threadPool = threads;
        config.http.maxRequestSize = limits.maxBodyBytes();
        config.jetty.modifyHttpConfiguration(http -> {
            http.setRequestHeaderSize(limits.maxHeaderBytes());
            http.setIdleTimeout(limits.idleTimeout().toMillis());
            http.setSendServerVersion(false);
            http.setSendXPoweredBy(false);
        });
        config.jetty.addConnector((server, http) -> connector(server, http, endpoint));
        config.jetty.modifyServer(server -> {
            JsonErrorHandler errors = new JsonErrorHandler(limits);
            server.setErrorHandler(errors);
            server.addBean(new NetworkConnectionLimit(limits.maxConnections(), server));
            server.insertHandler(new RequestGate(limits));
        });
    }

    private static ServerConnector connector(Server server, HttpConfiguration http, HttpEndpoint endpoint) {
        ServerConnector connector;
        if (endpoint.tls() == null) {
            connector = new ServerConnector(server, new HttpConnectionFactory(http));
        } else {
            SslContextFactory.Server ssl = new SslContextFactory.Server();
            ssl.setKeyStore(endpoint.tls());
            ssl.setKeyStorePassword(new String(PemKeyStore.PASSWORD));
            ssl.setKeyManagerPassword(new String(PemKeyStore.PASSWORD));
            ssl.setCertAlias(PemKeyStore.ALIAS);
            ssl.setSniRequired(false);
            HttpConfiguration https = new HttpConfiguration(http);
            SecureRequestCustomizer secure = new SecureRequestCustomizer();
            secure.setSniHostCheck(false); // one certificate; clients may reach it by IP address
            https.addCustomizer(secure);
            connector = new ServerConnector(server, new SslConnectionFactory(ssl, "http/1.1"),
                    new HttpConnectionFactory(https));
        }
        connector.setHost(endpoint.bindAddress());
        connector.setPort(endpoint.port());
        connector.setIdleTimeout(endpoint.limits().idleTimeout().toMillis());
        return connector;
    }
}
