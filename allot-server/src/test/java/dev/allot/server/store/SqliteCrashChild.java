package dev.allot.server.store;

import dev.allot.core.backend.AttemptKey;
import java.nio.file.Path;

/**
 * The process {@link SqliteStoreTest} kills: submits workloads forever, beginning an attempt for every other one,
 * and prints each acknowledgement ({@code w-N} or {@code w-N w-N#1}) only after the store call returned; first,
 * the durability settings its store read back ({@code durability Durability[...]}). With the arguments
 * {@code concurrent N}: N threads submit at once (their submissions share commits), each printing {@code w-N}.
 */
public final class SqliteCrashChild {
    private SqliteCrashChild() {
    }

    public static void main(String[] args) {
        Store store = Store.sqlite(Path.of(args[0]));
        System.out.println("durability " + store.durability());
        if (args.length > 1 && args[1].equals("concurrent")) {
            concurrent(store, Integer.parseInt(args[2]));
            return;
        }
        for (int i = 0; ; i++) {
            Workload w = store.workloads().submit(NewWorkload.builder("lab", "ada").submittedAtMillis(i).build());
            if (i % 2 == 0) {
                System.out.println(w.id());
            } else {
                AttemptKey key = store.attempts().beginAttempt(w.id(), StoreContract.on("n1", 0), i);
                System.out.println(w.id() + " " + key);
            }
            System.out.flush();
        }
    }

    /**
     * {@code threads} submitters at once, so that submissions share commits ({@link GroupCommit}); each prints the
     * id it was given once its submit returned.
     */
    private static void concurrent(Store store, int threads) {
        for (int t = 0; t < threads; t++) {
            String user = "user" + t;
            Thread th = new Thread(() -> {
                for (int i = 0; ; i++) {
                    Workload w = store.workloads().submit(NewWorkload.builder("lab", user).submittedAtMillis(i).build());
                    synchronized (System.out) {
                        System.out.println(w.id());
                        System.out.flush();
                    }
                }
            }, "submitter-" + t);
            th.start();
        }
    }
}
