package dev.allot.server.store;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class GroupCommitTest {

    @Test
    void aLoneCallerWritesAloneAndGetsItsResult() {
        List<List<Integer>> groups = new ArrayList<>();
        GroupCommit<Integer, String> gc = new GroupCommit<>(g -> {
            groups.add(g);
            return g.stream().map(i -> "g" + i).toList();
        }, i -> "one" + i, 10);
        assertThat(gc.write(7)).isEqualTo("one7");
        assertThat(groups).isEmpty();
    }

    @Test
    void concurrentCallersShareGroupsAndEachGetsItsOwnResult() throws Exception {
        AtomicInteger groupWrites = new AtomicInteger();
        AtomicInteger written = new AtomicInteger();
        List<Integer> all = Collections.synchronizedList(new ArrayList<>());
        GroupCommit<Integer, Integer> gc = new GroupCommit<>(g -> {
            groupWrites.incrementAndGet();
            sleep(2); // a commit's log sync
            all.addAll(g);
            written.addAndGet(g.size());
            return g.stream().map(i -> i * 10).toList();
        }, i -> {
            sleep(2);
            all.add(i);
            written.incrementAndGet();
            return i * 10;
        }, 64);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 0; i < 2000; i++) {
            int item = i;
            results.add(pool.submit(() -> {
                go.await();
                return gc.write(item);
            }));
        }
        go.countDown();
        for (int i = 0; i < results.size(); i++) {
            assertThat(results.get(i).get(30, TimeUnit.SECONDS)).isEqualTo(i * 10);
        }
        pool.shutdown();
        assertThat(written.get()).isEqualTo(2000);
        assertThat(all).doesNotHaveDuplicates().hasSize(2000);
        assertThat(groupWrites.get()).as("16 callers at once form groups").isPositive();
    }

    @Test
    void aFailingItemFailsOnlyItsOwnCaller() throws Exception {
        GroupCommit<Integer, Integer> gc = new GroupCommit<>(g -> {
            sleep(5);
            if (g.contains(13)) {
                throw new IllegalStateException("group refused");
            }
            return g;
        }, i -> {
            if (i == 13) {
                throw new IllegalArgumentException("13 is bad");
            }
            return i;
        }, 64);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> results = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            int item = i;
            results.add(pool.submit(() -> {
                go.await();
                return gc.write(item);
            }));
        }
        go.countDown();
        for (int i = 0; i < results.size(); i++) {
            Future<Integer> f = results.get(i);
            if (i == 13) {
                assertThatThrownBy(() -> f.get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(IllegalArgumentException.class)
                        .hasMessageContaining("13 is bad");
            } else {
                assertThat(f.get(30, TimeUnit.SECONDS)).isEqualTo(i);
            }
        }
        pool.shutdown();
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
