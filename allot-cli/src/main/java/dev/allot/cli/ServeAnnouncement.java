package dev.allot.cli;

import dev.allot.server.service.Bootstrap;
import dev.allot.server.service.Service;
import dev.allot.server.service.ServiceConfig;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * What {@code allot serve} prints once the service has started: where it listens (backend, node, data, store), the
 * metrics, API description and dashboard addresses, identity notices and the plain-HTTP warning, the first
 * administrator's token on a new store (shown once), with {@code --demo} the demo tree, users, token and commands to
 * try; and it writes the client configuration so the client commands find the server (and, in demo mode, the token),
 * naming the server it named before when that was another, and removing a token this server does not know.
 */
final class ServeAnnouncement {
    private ServeAnnouncement() {
    }

    /** Prints the announcement of {@code service}, started from the options of {@code o} as {@code config}. */
    static void print(ServeCommand o, Service service, ServiceConfig config, PrintWriter out, PrintWriter err) {
        Path dataDir = o.dataDir;
        boolean demo = o.demo;
        var localNode = service.store().nodes().nodes().stream().filter(n -> n.name().equals(config.nodeName()))
                .findFirst();
        out.println("Allot service listening on " + service.url() + " (backend " + o.backend
                + localNode.map(n -> ", node " + n.name() + " with " + n.gpus() + " GPU" + (n.gpus() == 1 ? "" : "s"))
                .orElse("") + ", data in " + dataDir + (o.dbUrl != null ? ", store " + o.dbUrl : "") + ")");
        out.println("Metrics: " + service.url() + "/metrics   API description: " + service.url() + "/v1/openapi.json");
        out.println("Dashboard: " + service.url() + "/ (sign in with an API token)");
        service.identity().notices().forEach(out::println);
        service.plainTextWarning().ifPresent(w -> out.println("WARNING: " + w));
        service.adminToken().ifPresent(t -> {
            out.println();
            out.println("Created user 'admin' (role admin). Its API token, shown only this once (also in "
                    + dataDir.resolve(Bootstrap.ADMIN_TOKEN_FILE) + "):");
            out.println("  " + t);
        });
        Path clientConfig = ClientConfig.path(ClientOptions.environment);
        String token = service.demoToken().orElse(null);
        String kept = service.keptDemoToken().orElse(null);
        Path demoTokenFile = dataDir.resolve(Bootstrap.DEMO_TOKEN_FILE);
        if (demo) {
            out.println();
            if (token != null) {
                out.println("Demo: allocation tree lab > nlp (share 60: lab/nlp/pretrain 3, lab/nlp/eval 1) and vision"
                        + " (share 40: lab/vision/video);");
                out.println("      users demo (admin), maria (manager of lab/nlp), ana and ben (members).");
                out.println("Demo token (user demo; also in " + demoTokenFile + "):");
                out.println("  " + token);
            } else if (kept != null) {
                out.println("Demo: the store already has allocations; left as they are. The demo token is the one in "
                        + demoTokenFile + ".");
            } else {
                out.println("Demo: the store already has allocations; left as they are (the demo token was printed"
                        + " at the first start).");
            }
        } else if (Files.exists(demoTokenFile)) {
            // --demo runs every user's workloads as one account; without it they run as said above, so the demo's
            // users (maria, ana, ben) may have no account to run as: say why their work changed, and how to go back
            out.println();
            out.println("Note: " + dataDir + " was set up by --demo, which runs every user's workloads as one account;"
                    + " started without --demo, they run as said above. Restart with --demo to keep the demo as it"
                    + " was.");
        }
        if (token == null) {
            token = kept; // a restart of the demo gives the client commands the demo token again
        }
        if (clientConfig == null) {
            err.println("allot: no HOME, XDG_CONFIG_HOME or " + ClientConfig.CONFIG_ENV
                    + ": the client configuration was not written");
        } else {
            try {
                ClientConfig.Values previous = previous(clientConfig);
                String before = previous.server();
                String written = demo ? token : null;
                // a token this server's store does not know signs in nowhere here: left in place, every client
                // command would fail with "unknown token" instead of asking for one
                boolean stale = written == null && previous.token() != null
                        && service.store().access().tokenHolder(previous.token()).isEmpty();
                ClientConfig.write(clientConfig, service.url(), written,
                        o.tlsCert == null ? null : o.tlsCert.toAbsolutePath().toString(), stale);
                out.println();
                out.println("Wrote " + clientConfig + ": the server"
                        + (before != null && !before.equals(service.url()) ? " (in place of " + before
                                + ", which the client commands talked to until now)" : "")
                        + (demo && token != null ? " and the demo token"
                        : stale ? ", and removed the token it held, which this server does not know (give --token or"
                        + " set " + ClientOptions.TOKEN_ENV + ")"
                        : demo ? ", keeping the token written before" : "")
                        + (demo ? "; the client commands need no --server or --token." : "."));
            } catch (RuntimeException e) {
                err.println("allot: could not write the client configuration " + clientConfig + ": " + ServeCommand.message(e));
            }
        }
        if (demo) {
            out.println("Try, in another terminal:");
            out.println("  ./allot submit --allocation lab/nlp/pretrain --gpus 2 --min-runtime 10m --resumable -- sleep 300");
            out.println("  ./allot queue");
            out.println("  ./allot explain w-1");
            out.println("and open the dashboard, " + service.url() + "/, signing in with the demo token.");
        }
        out.println();
        out.println("Stop with Ctrl-C (running workloads keep running and are adopted at the next start).");
        out.flush();
    }

    /**
     * What the client configuration held before this start (nothing, for a file that does not read): a second service
     * started for a test takes the client commands away from the first, and the banner says so.
     */
    private static ClientConfig.Values previous(Path clientConfig) {
        try {
            return ClientConfig.read(clientConfig);
        } catch (RuntimeException e) {
            return ClientConfig.Values.NONE;
        }
    }
}
