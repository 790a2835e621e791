package dev.allot.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.api.ApiServer;
import dev.allot.server.api.HttpEndpoint;
import dev.allot.server.backend.SimulatedBackend;
import dev.allot.server.policy.LivePolicy;
import dev.allot.server.policy.ServicePolicy;
import dev.allot.server.sched.SchedulerLoop;
import dev.allot.server.service.LoopExplainer;
import dev.allot.server.store.Node;
import dev.allot.server.store.Store;
import dev.allot.server.store.User;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What the client command stories run against, as {@code allot serve} wires it: a real API server over a SQLite
 * store, its queue and explanations from a real scheduling loop (simulated backend, a fixed clock, cycles run by hand
 * with {@link #loop}), its policy read by serve's reader of {@code policy.yaml}; one 8-GPU node {@code gpu-01}; users
 * {@code root} (administrator) and the given members, each with token {@code tok-<name>}. The client commands run as
 * a user with {@link #as}, with no client configuration from the environment.
 */
final class LoopApi implements AutoCloseable {
    static final Instant NOW = Instant.parse("2026-03-01T09:00:00Z");

    final Store store;
    final SchedulerLoop loop;
    final ApiServer server;
    final String url;
    /** Forecasts of the waiting work's starts, made by hand ({@code forecaster.forecastNow()}); not on a thread. */
    final dev.allot.server.forecast.LiveForecaster forecaster;
    private final Function<String, String> realEnvironment;

    private LoopApi(Store store, SchedulerLoop loop, ApiServer server, Function<String, String> realEnvironment,
                    dev.allot.server.forecast.LiveForecaster forecaster) {
        this.forecaster = forecaster;
        this.store = store;
        this.loop = loop;
        this.server = server;
        this.url = "http://127.0.0.1:" + server.port();
        this.realEnvironment = realEnvironment;
    }

    /** Starts it in {@code dataDir} with these members and the allocation tree {@code tree} puts in the store. */
    static LoopApi start(Path dataDir, List<String> members, Consumer<Store> tree) {
        Function<String, String> realEnvironment = ClientOptions.useEnvironment(Map.of());
        Store store = Store.sqlite(dataDir);
        long t = NOW.toEpochMilli();
        List<User> users = new ArrayList<>(List.of(new User("root", User.Role.ADMIN)));
        members.forEach(m -> users.add(new User(m, User.Role.USER)));
        for (User u : users) {
            store.access().putUser(u);
            store.access().addToken(u.name(), "tok-" + u.name(), "test", t);
        }
        tree.accept(store);
        store.nodes().putNode(new Node("gpu-01", 8, true, null, t));
        Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
        ServicePolicy policy = ServicePolicy.defaults();
        SchedulerLoop loop = new SchedulerLoop(store, new SimulatedBackend(clock), policy.create(), policy.scheduler(),
                clock);
        LivePolicy live = new LivePolicy(policy, ServePolicy.reader(), store, clock,
                p -> loop.usePolicy(p.create(), p.scheduler()));
        dev.allot.server.forecast.LiveForecaster forecaster = new dev.allot.server.forecast.LiveForecaster(store, loop,
                live::current, dev.allot.server.forecast.LiveForecaster.serviceSettings(),
                dev.allot.server.forecast.LiveForecaster.DEFAULT_DURATION, clock);
        loop.observe(forecaster);
        ApiServer server = ApiServer.start(store, HttpEndpoint.loopback(0), clock, ApiServer.Extras.none(),
                new LoopExplainer(loop, store, forecaster), live);
        return new LoopApi(store, loop, server, realEnvironment, forecaster);
    }

    /** Runs a client command as {@code user} (its server and token given as options, before any {@code --}). */
    Cli.Result as(String user, String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        int at = all.contains("--") ? all.indexOf("--") : all.size();
        all.addAll(at, List.of("--server", url, "--token", "tok-" + user));
        return Cli.run(all.toArray(String[]::new));
    }

    /** Submits with {@code allot submit} as {@code user} and returns the new workload's id. */
    String submit(String user, String... submitArgs) {
        List<String> all = new ArrayList<>(List.of("submit"));
        all.addAll(Arrays.asList(submitArgs));
        Cli.Result r = as(user, all.toArray(String[]::new));
        assertThat(r.exit()).as(r.err()).isZero();
        return r.out().substring("submitted ".length(), r.out().indexOf(' ', "submitted ".length()));
    }

    @Override
    public void close() {
        ClientOptions.environment = realEnvironment;
        server.close();
        loop.close();
        store.close();
    }
}
