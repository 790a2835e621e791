package dev.allot.server.store;

import dev.allot.core.backend.AttemptKey;
import java.nio.file.Path;

/**
 * The process {@link SqliteStoreTest} kills: submits workloads forever, beginning an attempt for every other one,
 * and prints each acknowledgement ({@code w-N} or {@code w-N w-N#1}) only after the store call returned; first,
 * the durability settings its store read back ({@code durability Durability[...]}).
 */
public final class SqliteCrashChild {
    private SqliteCrashChild() {
    }

    public static void main(String[] args) {
        Store store = Store.sqlite(Path.of(args[0]));
        System.out.println("durability " + store.durability());
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
}
