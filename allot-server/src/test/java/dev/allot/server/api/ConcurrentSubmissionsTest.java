package dev.allot.server.api;

import static dev.allot.server.api.ApiFixture.body;
import static org.assertj.core.api.Assertions.assertThat;

import dev.allot.server.api.ApiFixture.Response;
import dev.allot.server.store.Workload;
import dev.allot.server.store.WorkloadFilter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Single submissions from many connections at once, as the store commits them in groups (one transaction and one
 * sync for the submissions that arrive together): each request is answered on its own, a 201 only once its own
 * workload is stored, a bad one with its own 400 naming its field, whatever it was grouped with.
 */
class ConcurrentSubmissionsTest {
    @RegisterExtension
    final ApiExtension fx = new ApiExtension();

    /** What one request sent and what it was answered. */
    record Sent(String kind, String key, Response answer) {
    }

    @Test
    void goodAndBadSubmissionsAtOnceAreEachAnsweredOnTheirOwn() throws Exception {
        // given 16 clients submitting at once: mostly good work, some with 0 GPUs, some to an unknown allocation,
        // and some with an idempotency key two clients share
        int threads = 16;
        int each = 12;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<List<Sent>>> futures = new ArrayList<>();
        try {
            for (int t = 0; t < threads; t++) {
                int client = t;
                Callable<List<Sent>> job = () -> {
                    go.await();
                    List<Sent> mine = new ArrayList<>();
                    for (int i = 0; i < each; i++) {
                        String key = "job-" + client + "-" + i;
                        switch (i % 4) {
                            case 1 -> mine.add(new Sent("no-gpus", null, fx.api.submit("member", body("gpus", "0"))));
                            case 2 -> mine.add(new Sent("unknown", null, fx.api.submit("member",
                                    body("allocation", "\"lab/nope\""))));
                            case 3 -> {
                                String shared = "shared-" + (client / 2) + "-" + i; // clients 2k and 2k+1 share it
                                mine.add(new Sent("shared", shared, fx.api.submit("member",
                                        body("idempotencyKey", "\"" + shared + "\""))));
                            }
                            default -> mine.add(new Sent("good", key, fx.api.submit("member",
                                    body("idempotencyKey", "\"" + key + "\"", "kind", "\"k" + client + "\""))));
                        }
                    }
                    return mine;
                };
                futures.add(pool.submit(job));
            }
            go.countDown();
            List<Sent> sent = new ArrayList<>();
            for (Future<List<Sent>> f : futures) {
                sent.addAll(f.get(5, TimeUnit.MINUTES));
            }

            // then each bad one has its own 400 naming its own field
            assertThat(sent.stream().filter(s -> s.kind.equals("no-gpus"))).hasSize(threads * each / 4)
                    .allSatisfy(s -> {
                        assertThat(s.answer.status()).isEqualTo(400);
                        assertThat(s.answer.field()).isEqualTo("gpus");
                    });
            assertThat(sent.stream().filter(s -> s.kind.equals("unknown"))).hasSize(threads * each / 4)
                    .allSatisfy(s -> {
                        assertThat(s.answer.status()).isEqualTo(400);
                        assertThat(s.answer.field()).isEqualTo("allocation");
                    });
            // and every good one was answered 201 with a workload of its own, stored as sent
            List<Sent> good = sent.stream().filter(s -> s.kind.equals("good")).toList();
            assertThat(good).hasSize(threads * each / 4).allSatisfy(s -> assertThat(s.answer.status()).isEqualTo(201));
            assertThat(good).extracting(s -> s.answer.json().path("id").asText()).doesNotHaveDuplicates();
            for (Sent s : good) {
                Workload w = fx.api.store.workloads().workload(s.answer.json().path("id").asText()).orElseThrow();
                assertThat(w.idempotencyKey()).endsWith(s.key);
                assertThat(w.kind()).isEqualTo("k" + s.key.split("-")[1]);
            }
            // and the two clients that shared a key got the same workload
            Map<String, List<String>> byKey = sent.stream().filter(s -> s.kind.equals("shared"))
                    .peek(s -> assertThat(s.answer.status()).isEqualTo(201))
                    .collect(Collectors.groupingBy(Sent::key,
                            Collectors.mapping(s -> s.answer.json().path("id").asText(), Collectors.toList())));
            assertThat(byKey).hasSize(threads / 2 * each / 4)
                    .allSatisfy((key, ids) -> assertThat(ids).hasSize(2).containsOnly(ids.get(0)));
            // and the store holds exactly the acknowledged workloads
            assertThat(fx.api.store.workloads().workloads(WorkloadFilter.all())).hasSize(good.size() + byKey.size());
        } finally {
            pool.shutdownNow();
        }
    }
}
