package dev.sovereign.console.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.Dependency;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchCondition;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.ConditionEvents;
import com.tngtech.archunit.lang.SimpleConditionEvent;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
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
    private static final Set<String> ALLOWED_TOP_LEVEL = Set.of(
            "dev.sovereign.engine.base.StorageException",
            "dev.sovereign.engine.base.StorageException$Problem",
            "dev.sovereign.engine.base.Refusal",
            "dev.sovereign.engine.base.RefusalCategory",
            "dev.sovereign.engine.Ledgers",
            "dev.sovereign.engine.AboutSovereign",
            // the name of a ledger (a file or a server URL) in the admin API, and the one redactor of its secrets
            "dev.sovereign.engine.base.LedgerLocation",
            // how to follow the journal in seq order when rows commit out of order (a server): an algorithm
            // over AdminReader.eventsSince, no storage of its own
            "dev.sovereign.engine.journal.JournalTail",
            "dev.sovereign.engine.journal.JournalTail$Source");

    /** What only views may use: the scene graph, stages and the theme's controls. */
    private static final String[] SCENE_PACKAGES = {"javafx.scene..", "javafx.stage..", "atlantafx.."};

    private static final DescribedPredicate<JavaClass> ENGINE_OUTSIDE_ADMIN =
            new DescribedPredicate<>(
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
            .should()
            .dependOnClassesThat(ENGINE_OUTSIDE_ADMIN)
            .because("engine.admin is the console's only door to the engine: its internals, stores and SQL"
                    + " may change without the console noticing; " + LAB_REASON);

    @ArchTest
    static final ArchRule noSqlInTheConsole = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("java.sql..", "org.sqlite..")
            .because("nothing outside the engine's storage layer opens the database file");

    private static final String SHELL = "dev.sovereign.console.shell.";

    /**
     * The parts of the shell's view model, each with one responsibility (attaching a ledger, navigation and its
     * history, the search, export, the demo's lifecycle, the banner and the alerts, the status bar's texts, stopping
     * the selected process, the pages' view models), put together by {@code ShellViewModel} alone.
     */
    private static final Set<String> SHELL_PARTS = new TreeSet<>(Set.of(
            SHELL + "LedgerAttachment",
            SHELL + "ShellNavigation",
            SHELL + "ShellSearch",
            SHELL + "JournalExport",
            SHELL + "DemoSession",
            SHELL + "ShellBanners",
            SHELL + "StatusLine",
            SHELL + "ProcessStopping",
            SHELL + "FeatureViewModels"));

    /** What one part keeps to itself: {@code LedgerAttachment}'s passwords of this session. */
    private static final Set<String> PART_PIECES = new TreeSet<>(Set.of(SHELL + "SessionSecrets"));

    /** The main window's pieces, put together by {@code MainWindow} alone. */
    private static final Set<String> WINDOW_PIECES = new TreeSet<>(
            Set.of(SHELL + "ShellMenuBar", SHELL + "NavigationPane", SHELL + "StatusBar", SHELL + "WelcomeView"));

    @ArchTest
    static final ArchRule viewModelsAreFreeOfScene = noClasses()
            .that()
            .haveSimpleNameEndingWith("ViewModel")
            .or()
            .resideInAnyPackage("dev.sovereign.console.ledger..")
            .or(topLevelIn(SHELL_PARTS))
            .or(topLevelIn(PART_PIECES))
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(SCENE_PACKAGES)
            .because("view models hold state and commands and are tested without a toolkit; views bind to them;"
                    + " the parts of the shell's view model (" + SHELL_PARTS + ") and their pieces (" + PART_PIECES
                    + ") are view-model code too");

    @ArchTest
    static final ArchRule shellPartsNameNoOtherPart = classes()
            .that(topLevelIn(SHELL_PARTS))
            .should(nameNeither(SHELL + "ShellViewModel", SHELL_PARTS))
            .because("each part of the shell's view model is one responsibility the coordinator puts together; what"
                    + " one needs of another comes in as a property or a lambda, so none can grow into a second hub"
                    + " and no two can depend on each other in a circle");

    @ArchTest
    static final ArchRule partPiecesNameNoPart = classes()
            .that(topLevelIn(PART_PIECES))
            .should(nameNeither(SHELL + "ShellViewModel", SHELL_PARTS))
            .because("a part's piece serves the part that owns it and knows nothing of the shell around it");

    @ArchTest
    static final ArchRule windowPiecesNameNoOtherPiece = classes()
            .that(topLevelIn(WINDOW_PIECES))
            .should(nameNeither(SHELL + "MainWindow", WINDOW_PIECES))
            .because("the main window puts its pieces together and hands each what it needs (the dialogs as"
                    + " Runnables); a piece that reached back into the window or into another piece would make a"
                    + " circle of view code");

    /** Classes whose top-level class is one of {@code names}: nested, anonymous and lambda classes count too. */
    private static DescribedPredicate<JavaClass> topLevelIn(Set<String> names) {
        return new DescribedPredicate<>("belong to one of " + names) {
            @Override
            public boolean test(JavaClass c) {
                return names.contains(topLevel(c).getName());
            }
        };
    }

    /** Depends neither on {@code owner} nor on one of {@code siblings} other than its own top-level class. */
    private static ArchCondition<JavaClass> nameNeither(String owner, Set<String> siblings) {
        return new ArchCondition<>("depend neither on " + owner + " nor on another of " + siblings) {
            @Override
            public void check(JavaClass c, ConditionEvents events) {
                String self = topLevel(c).getName();
                for (Dependency d : c.getDirectDependenciesFromSelf()) {
                    String target = topLevel(d.getTargetClass()).getName();
                    if (!target.equals(self) && (target.equals(owner) || siblings.contains(target))) {
                        events.add(SimpleConditionEvent.violated(d, d.getDescription()));
                    }
                }
            }
        };
    }

    private static JavaClass topLevel(JavaClass c) {
        JavaClass top = c;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return top;
    }

    /**
     * Whether a class is (part of) a view: its top-level class is named {@code XxxView}, {@code XxxWindow},
     * or is one of a view's pieces ({@code XxxSection}, {@code XxxBar}, {@code XxxPane}, {@code XxxCell}).
     */
    private static final DescribedPredicate<JavaClass> VIEW_CODE =
            new DescribedPredicate<>(
                    "view code (top-level class named *View, *Window, *Section, *Bar, *Pane or *Cell)") {
                @Override
                public boolean test(JavaClass c) {
                    String name = topLevel(c).getSimpleName();
                    return Stream.of("View", "Window", "Section", "Bar", "Pane", "Cell")
                            .anyMatch(name::endsWith);
                }
            };

    @ArchTest
    static final ArchRule featureStateIsFreeOfScene = noClasses()
            .that()
            .resideInAPackage("dev.sovereign.console.feature..")
            .and(DescribedPredicate.not(VIEW_CODE))
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(SCENE_PACKAGES)
            .because("a page's state, its rooms (LabWorkers, LabScenarioRun, LabSandbox, ...) and its sentences"
                    + " (LabSentences) are view-model code, tested without a toolkit; only its views build nodes");

    @ArchTest
    static final ArchRule noBareThreadsInViews = noClasses()
            .that(VIEW_CODE)
            .should()
            .dependOnClassesThat()
            .belongToAnyOf(Thread.class, Executors.class)
            .because("background work goes through the UiExecutor, never a thread started by a view");
}
