package dev.allot.core;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

/** allot-core is the model and the policy: no I/O, no threads, no wall clock, and nothing above it. */
class ArchitectureTest {
    private static final JavaClasses CORE = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("dev.allot.core");

    @Test
    void coreDoesNoIo() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("java.io..", "java.nio..", "java.net..", "java.sql..")
                .because("allot-core computes decisions; reading and writing is the simulator's and the service's job")
                .check(CORE);
    }

    @Test
    void coreStartsNoThreads() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("java.util.concurrent..")
                .orShould().accessClassesThat().areAssignableTo(Thread.class)
                .because("a policy is a pure function of a snapshot")
                .check(CORE);
    }

    @Test
    void coreReadsNoClock() {
        noClasses().should().callMethod(System.class, "currentTimeMillis")
                .orShould().callMethod(System.class, "nanoTime")
                .orShould().callMethod(java.time.Instant.class, "now")
                .orShould().dependOnClassesThat().areAssignableTo(java.time.Clock.class)
                .because("time comes in as a parameter, so the simulator and the service run the same code")
                .check(CORE);
    }

    @Test
    void coreDependsOnNothingAboveIt() {
        noClasses().should().dependOnClassesThat().resideInAnyPackage("dev.allot.sim..", "dev.allot.cli..", "dev.allot.server..")
                .check(CORE);
    }
}
