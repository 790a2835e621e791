package dev.allot.it;

import static java.lang.annotation.ElementType.TYPE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;
import static org.junit.jupiter.api.parallel.ResourceAccessMode.READ;
import static org.junit.jupiter.api.parallel.ResourceAccessMode.READ_WRITE;

import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.util.Set;
import org.junit.jupiter.api.parallel.ResourceLocksProvider;

/**
 * Which stories may run beside each other on this machine, as a JUnit resource lock ({@code junit-platform.properties}
 * turns parallel execution on; every class still runs in turn on one thread unless it says otherwise). The model
 * agreement story drives a Slurm of its own for about 90 s, mostly waiting for its sleeps and Slurm's minute; it runs
 * concurrently and takes this lock shared. So do the stories marked {@link Shares} (the fault story, which asserts no
 * timing at all), which therefore run beside it. Every other story on the shared cluster takes the lock exclusively
 * (this provider, on {@link SlurmStories}): nothing whose assertions read a clock (the replay's start errors, the
 * failover bound, the end-while-down times) runs beside the agreement story, and the agreement story's margins
 * (measured on a loaded 2-core machine) only ever have the fault story beside them.
 */
final class Machine implements ResourceLocksProvider {
    static final String LOCK = "dev.allot.it.machine";

    /** On a story class: it asserts no timing, so it may share the machine with the model agreement story. */
    @Retention(RUNTIME)
    @Target(TYPE)
    @interface Shares {
    }

    @Override
    public Set<Lock> provideForClass(Class<?> testClass) {
        return Set.of(new Lock(LOCK, testClass.isAnnotationPresent(Shares.class) ? READ : READ_WRITE));
    }
}
