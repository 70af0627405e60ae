package dev.sovereign.engine.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.codeUnits;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.fields;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.core.importer.Location;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTag;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import dev.sovereign.engine.EngineAccess;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.spi.StorageBackend;
import java.time.Clock;
import java.util.HashSet;
import java.util.Set;

/**
 * Keeps the modules of engine/ what docs/architecture.md says they are: the core (API, rules, the
 * storage port) names no backend, no lab and no CLI; a backend names no lab and no CLI; the lab names
 * no CLI; the public API never leaks an internal type; and no module's packages form a circle.
 */
@ArchTag("architecture") // run again by engine/postgres, where the PostgreSQL adapter is on the class path
@AnalyzeClasses(
        packages = "dev.sovereign.engine",
        importOptions = {ImportOption.DoNotIncludeTests.class, EngineLayeringTest.NoTestJars.class})
class EngineLayeringTest {
    /** A backend module runs these rules with engine/it's test-jar on its class path: its tests are not the engine. */
    static final class NoTestJars implements ImportOption {
        @Override
        public boolean includes(Location location) {
            return !location.contains("-tests.jar");
        }
    }

    private static final String SQLITE = "dev.sovereign.engine.internal.sqlite..";
    private static final String POSTGRES = "dev.sovereign.engine.internal.postgres..";
    /** The store layer both backends share (decision 0014). */
    private static final String JDBC = "dev.sovereign.engine.internal.jdbc..";

    private static final String LAB = "dev.sovereign.engine.lab..";
    private static final String CLI = "dev.sovereign.engine.cli..";

    @ArchTest
    static final ArchRule sqlOnlyInTheStorageLayer = noClasses()
            .that()
            .resideOutsideOfPackages(SQLITE, POSTGRES, JDBC)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("java.sql..", "org.sqlite..", "org.postgresql..")
            .because("SQL and the database file are touched only by a backend, so every write goes through"
                    + " its one guarded transaction");

    @ArchTest
    static final ArchRule theCoreNamesNoBackendNoLabNoCli = noClasses()
            .that()
            .resideOutsideOfPackages(SQLITE, POSTGRES, JDBC, LAB, CLI)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(SQLITE, POSTGRES, JDBC, LAB, CLI)
            .because("the core finds its backend through the storage port (ServiceLoader), and the lab and the"
                    + " CLI are its clients: an agent embeds core + one backend and carries nothing else");

    @ArchTest
    static final ArchRule theStoreLayerNamesNoBackendAndNoDriver = noClasses()
            .that()
            .resideInAPackage(JDBC)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(SQLITE, POSTGRES, "org.sqlite..", "org.postgresql..")
            .because("the shared stores are written once against JdbcTx and a Dialect; what differs between the"
                    + " backends is a hook a backend implements, never a branch on which backend it is");

    @ArchTest
    static final ArchRule aBackendNamesNoLabNoCli = noClasses()
            .that()
            .resideInAnyPackage(SQLITE, POSTGRES, JDBC)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(LAB, CLI)
            .because("a backend implements the port for the core; the lab and the CLI sit above it");

    @ArchTest
    static final ArchRule backendsWordNoRefusal = noClasses()
            .that()
            .resideInAnyPackage(SQLITE, POSTGRES, JDBC)
            .should()
            .callMethod(Refusal.class, "of", RefusalCategory.class, String.class)
            .because("who may do what, the refusal categories and their sentences are written once, in the"
                    + " core's rule book (dev.sovereign.engine.rules); a backend reads rows, asks the rules and"
                    + " performs the compare-and-set they allow, so a second backend cannot drift in wording or"
                    + " in judgement");

    @ArchTest
    static final ArchRule onlyBackendsReachBelowTheEngine = noClasses()
            .that()
            .resideOutsideOfPackages(SQLITE, POSTGRES, JDBC, "dev.sovereign.engine.spi..")
            .and()
            .resideOutsideOfPackage("dev.sovereign.engine") // the facade: Engine installs, Ledgers opens
            .should()
            .dependOnClassesThat()
            .belongToAnyOf(EngineAccess.class, StorageBackend.class)
            .because("the ledger under an engine is for backends, their tests and tools: the lab, the CLI, the"
                    + " admin API and the core's own orchestration use the engine (or Ledgers), never the stores"
                    + " beneath it — not by a call, not by a method reference, and not by opening a backend"
                    + " through the port with a Grants of their own");

    @ArchTest
    static final ArchRule theRuleBookTouchesNoStorage = noClasses()
            .that()
            .resideInAPackage("dev.sovereign.engine.rules..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("dev.sovereign.engine.spi..", "dev.sovereign.engine.internal..", "java.sql..")
            .orShould()
            .dependOnClassesThat()
            .areAssignableTo(Clock.class)
            .because("the rules are pure functions of what a transaction read: no storage, no clock, no state");

    @ArchTest
    static final ArchRule theLabNeverStartsTheCli = noClasses()
            .that()
            .resideInAPackage(LAB)
            .should()
            .dependOnClassesThat()
            .resideInAPackage(CLI)
            .because("the lab starts its workers with its own entry point, so the console ships no picocli,"
                    + " no Jackson");

    @ArchTest
    static final ArchRule noJavaFxInTheEngine = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("javafx..", "atlantafx..")
            .because("the engine is embedded headlessly by agents; the console depends on it, never the reverse");

    @ArchTest
    static final ArchRule picocliOnlyInTheCli = noClasses()
            .that()
            .resideOutsideOfPackage(CLI)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("picocli..")
            .because("picocli is the CLI's; embedders and the console do not carry it");

    @ArchTest
    static final ArchRule jacksonOnlyInTheCli = noClasses()
            .that()
            .resideOutsideOfPackage(CLI)
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("com.fasterxml.jackson..")
            .because("Jackson is the CLI's, for --json; embedders and the console do not carry it");

    @ArchTest
    static final ArchRule onlyProcessEntryPointsPrintOrExit = noClasses()
            .that()
            .resideOutsideOfPackage(CLI)
            .and()
            .doNotHaveFullyQualifiedName("dev.sovereign.engine.lab.WorkerMain")
            .should()
            .accessField(System.class, "out")
            .orShould()
            .accessField(System.class, "err")
            .orShould()
            .callMethod(System.class, "exit", int.class)
            .because("a library must not print or end its host's process; only the CLI and the lab's worker"
                    + " entry point own a process");

    private static final DescribedPredicate<JavaClass> PUBLIC_API = new DescribedPredicate<>("the public API") {
        @Override
        public boolean test(JavaClass c) {
            return c.getModifiers().contains(JavaModifier.PUBLIC)
                    && !c.getPackageName().contains(".internal")
                    && !c.getPackageName().startsWith("dev.sovereign.engine.cli");
        }
    };

    private static boolean internal(JavaClass t) {
        return t.getPackageName().startsWith("dev.sovereign.engine.internal");
    }

    /** Every type a public member's signature involves: parameters, return, generic arguments, exceptions. */
    @ArchTest
    static final ArchRule thePublicApiLeaksNoInternalType = codeUnits()
            .that()
            .arePublic()
            .and()
            .areDeclaredInClassesThat(PUBLIC_API)
            .should(new ArchCondition<JavaCodeUnit>("mention no internal type in their signature") {
                @Override
                public void check(JavaCodeUnit m, ConditionEvents events) {
                    Set<JavaClass> involved = new HashSet<>();
                    m.getParameterTypes().forEach(t -> involved.addAll(t.getAllInvolvedRawTypes()));
                    involved.addAll(m.getReturnType().getAllInvolvedRawTypes());
                    m.getExceptionTypes().forEach(involved::add);
                    for (JavaClass t : involved) {
                        if (internal(t)) {
                            events.add(SimpleConditionEvent.violated(m, m.getFullName() + " mentions " + t.getName()));
                        }
                    }
                }
            })
            .because("what an embedder can call must not depend on internals that change without notice; the"
                    + " storage port (dev.sovereign.engine.spi) is the public way below the API");

    @ArchTest
    static final ArchRule thePublicApiExposesNoInternalField = fields().that()
            .arePublic()
            .and()
            .areDeclaredInClassesThat(PUBLIC_API)
            .should(new ArchCondition<JavaField>("not be of an internal type") {
                @Override
                public void check(JavaField f, ConditionEvents events) {
                    for (JavaClass t : f.getType().getAllInvolvedRawTypes()) {
                        if (internal(t)) {
                            events.add(SimpleConditionEvent.violated(f, f.getFullName() + " is of " + t.getName()));
                        }
                    }
                }
            })
            .because("a public field of an internal type is a leak like a method's");

    /**
     * No circle between the engine's packages, the facade included: {@code dev.sovereign.engine} holds only
     * the facade ({@code Engine}, {@code Ledgers}, {@code EngineAccess}), which may use every package and
     * which only the clients above it use; the shared vocabulary ({@code Refusal}, {@code EngineConfig},
     * {@code StorageException}, {@code LedgerLocation}, ...) is the leaf package {@code base}, which uses none
     * (decision 0010).
     */
    @ArchTest
    static final ArchRule thePackagesFormNoCircle = slices().assignedFrom(new SliceAssignment() {
                @Override
                public SliceIdentifier getIdentifierOf(JavaClass c) {
                    String p = c.getPackageName();
                    if (p.equals("dev.sovereign.engine")) {
                        return SliceIdentifier.of("(facade)");
                    }
                    if (!p.startsWith("dev.sovereign.engine.")) {
                        return SliceIdentifier.ignore();
                    }
                    String[] parts =
                            p.substring("dev.sovereign.engine.".length()).split("\\.");
                    return SliceIdentifier.of(
                            parts[0].equals("internal") && parts.length > 1 ? "internal." + parts[1] : parts[0]);
                }

                @Override
                public String getDescription() {
                    return "the packages of dev.sovereign.engine, the facade included";
                }
            })
            .should()
            .beFreeOfCycles()
            .because("a circle between packages is a module that cannot be split or understood on its own");

    @ArchTest
    static final ArchRule theVocabularyIsALeaf = noClasses()
            .that()
            .resideInAPackage("dev.sovereign.engine.base..")
            .should()
            .dependOnClassesThat(JavaClass.Predicates.resideInAPackage("dev.sovereign.engine..")
                    .and(DescribedPredicate.not(JavaClass.Predicates.resideInAPackage("dev.sovereign.engine.base.."))))
            .because("every package uses the vocabulary, so it may use none of them");
}
