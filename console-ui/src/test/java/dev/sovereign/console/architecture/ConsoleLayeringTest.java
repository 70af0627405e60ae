package dev.sovereign.console.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import dev.sovereign.console.shell.DemoSession;
import java.util.Set;
import java.util.stream.Stream;

/** Keeps the console a client of {@code engine.admin} (and, for the Lab page, {@code engine.lab}) only. */
@AnalyzeClasses(packages = "dev.sovereign.console", importOptions = ImportOption.DoNotIncludeTests.class)
class ConsoleLayeringTest {
    /**
     * The engine types outside {@code admin} the console may name: the exception family a reader throws, and the
     * facade's two doors to the admin API — {@code Ledgers} (opens an {@code AdminReader} and the
     * {@code OperatorActions}) and {@code AboutSovereign} (the About box). Not {@code Engine} itself and not
     * {@code EngineAccess}: the console reads through {@code AdminReader} and acts through
     * {@code OperatorActions} (decision 0010).
     */
    private static final Set<String> ALLOWED_TOP_LEVEL = Set.of("dev.sovereign.engine.base.StorageException",
            "dev.sovereign.engine.base.StorageException$Problem", "dev.sovereign.engine.base.Refusal",
            "dev.sovereign.engine.base.RefusalCategory", "dev.sovereign.engine.Ledgers",
            "dev.sovereign.engine.AboutSovereign",
            // the name of a ledger (a file or a server URL) in the admin API, and the one redactor of its secrets
            "dev.sovereign.engine.base.LedgerLocation",
            // how to follow the journal in seq order when rows commit out of order (a server): an algorithm
            // over AdminReader.eventsSince, no storage of its own
            "dev.sovereign.engine.journal.JournalTail", "dev.sovereign.engine.journal.JournalTail$Source");

    /** What only views may use: the scene graph, stages and the theme's controls. */
    private static final String[] SCENE_PACKAGES = {"javafx.scene..", "javafx.stage..", "atlantafx.."};

    private static final DescribedPredicate<JavaClass> ENGINE_OUTSIDE_ADMIN = new DescribedPredicate<>(
            "engine classes outside dev.sovereign.engine.admin and dev.sovereign.engine.lab (except "
                    + ALLOWED_TOP_LEVEL + ")") {
        @Override
        public boolean test(JavaClass c) {
            String pkg = c.getPackageName();
            if (!pkg.equals("dev.sovereign.engine") && !pkg.startsWith("dev.sovereign.engine.")) {
                return false;
            }
            if (pkg.equals("dev.sovereign.engine.admin") || pkg.startsWith("dev.sovereign.engine.admin.")) {
                return false;
            }
            if (pkg.equals("dev.sovereign.engine.lab") || pkg.startsWith("dev.sovereign.engine.lab.")) {
                return false; // see LAB_REASON
            }
            return !ALLOWED_TOP_LEVEL.contains(c.getName());
        }
    };

    /** Why {@code engine.lab} is allowed too. */
    private static final String LAB_REASON = "engine.lab starts and controls real worker processes (the demo, the"
            + " lab) the way an operator would, as separate OS processes that write only through the engine";

    @ArchTest
    static final ArchRule consoleUsesOnlyTheAdminApi = noClasses()
            .should().dependOnClassesThat(ENGINE_OUTSIDE_ADMIN)
            .because("engine.admin is the console's only door to the engine: its internals, stores and SQL"
                    + " may change without the console noticing; " + LAB_REASON);

    @ArchTest
    static final ArchRule noSqlInTheConsole = noClasses()
            .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "org.sqlite..")
            .because("nothing outside the engine's storage layer opens the database file");

    @ArchTest
    static final ArchRule viewModelsAreFreeOfScene = noClasses()
            .that().haveSimpleNameEndingWith("ViewModel")
            .or().resideInAnyPackage("dev.sovereign.console.ledger..")
            .or().belongToAnyOf(DemoSession.class)
            .should().dependOnClassesThat().resideInAnyPackage(SCENE_PACKAGES)
            .because("view models hold state and commands and are tested without a toolkit; views bind to them;"
                    + " the shell's DemoSession is the demo's part of the shell's view model");

    /**
     * Whether a class is (part of) a view: its top-level class is named {@code XxxView}, {@code XxxWindow},
     * or is one of a view's pieces ({@code XxxSection}, {@code XxxBar}, {@code XxxPane}, {@code XxxCell}).
     */
    private static final DescribedPredicate<JavaClass> VIEW_CODE = new DescribedPredicate<>(
            "view code (top-level class named *View, *Window, *Section, *Bar, *Pane or *Cell)") {
        @Override
        public boolean test(JavaClass c) {
            JavaClass top = c;
            while (top.getEnclosingClass().isPresent()) {
                top = top.getEnclosingClass().get();
            }
            String name = top.getSimpleName();
            return Stream.of("View", "Window", "Section", "Bar", "Pane", "Cell").anyMatch(name::endsWith);
        }
    };

    @ArchTest
    static final ArchRule featureStateIsFreeOfScene = noClasses()
            .that().resideInAPackage("dev.sovereign.console.feature..").and(DescribedPredicate.not(VIEW_CODE))
            .should().dependOnClassesThat().resideInAnyPackage(SCENE_PACKAGES)
            .because("a page's state, its rooms (LabWorkers, LabScenarioRun, LabSandbox, ...) and its sentences"
                    + " (LabSentences) are view-model code, tested without a toolkit; only its views build nodes");

    @ArchTest
    static final ArchRule noBareThreadsInViews = noClasses()
            .that(VIEW_CODE)
            .should().dependOnClassesThat().belongToAnyOf(Thread.class, java.util.concurrent.Executors.class)
            .because("background work goes through the UiExecutor, never a thread started by a view");
}
