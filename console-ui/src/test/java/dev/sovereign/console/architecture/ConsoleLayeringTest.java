package dev.sovereign.console.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import java.util.Set;

/** Keeps the console a client of {@code engine.admin} only (see ../shared/STYLE.md). */
@AnalyzeClasses(packages = "dev.sovereign.console", importOptions = ImportOption.DoNotIncludeTests.class)
class ConsoleLayeringTest {
    /**
     * The top-level engine types the console may name: the exception family a reader throws. Not
     * {@code Engine} itself: the console reads through {@code AdminReader} and (round 2) acts through
     * {@code OperatorActions}.
     */
    private static final Set<String> ALLOWED_TOP_LEVEL = Set.of("dev.sovereign.engine.StorageException",
            "dev.sovereign.engine.StorageException$Problem", "dev.sovereign.engine.Refusal",
            "dev.sovereign.engine.RefusalCategory");

    private static final DescribedPredicate<JavaClass> ENGINE_OUTSIDE_ADMIN = new DescribedPredicate<>(
            "engine classes outside dev.sovereign.engine.admin (except " + ALLOWED_TOP_LEVEL + ")") {
        @Override
        public boolean test(JavaClass c) {
            String pkg = c.getPackageName();
            if (!pkg.equals("dev.sovereign.engine") && !pkg.startsWith("dev.sovereign.engine.")) {
                return false;
            }
            if (pkg.equals("dev.sovereign.engine.admin") || pkg.startsWith("dev.sovereign.engine.admin.")) {
                return false;
            }
            return !ALLOWED_TOP_LEVEL.contains(c.getName());
        }
    };

    @ArchTest
    static final ArchRule consoleUsesOnlyTheAdminApi = noClasses()
            .should().dependOnClassesThat(ENGINE_OUTSIDE_ADMIN)
            .because("engine.admin is the console's only door to the engine: its internals, stores and SQL"
                    + " may change without the console noticing");

    @ArchTest
    static final ArchRule noSqlInTheConsole = noClasses()
            .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "org.sqlite..")
            .because("nothing outside the engine's storage layer opens the database file");

    @ArchTest
    static final ArchRule viewModelsAreFreeOfScene = noClasses()
            .that().haveSimpleNameEndingWith("ViewModel")
            .or().resideInAnyPackage("dev.sovereign.console.ledger..")
            .should().dependOnClassesThat().resideInAnyPackage("javafx.scene..", "javafx.stage..", "atlantafx..")
            .because("view models hold state and commands and are tested without a toolkit; views bind to them");

    @ArchTest
    static final ArchRule noBareThreadsInViews = noClasses()
            .that().haveSimpleNameEndingWith("View").or().haveSimpleNameEndingWith("Window")
            .should().dependOnClassesThat().belongToAnyOf(Thread.class, java.util.concurrent.Executors.class)
            .because("background work goes through the UiExecutor, never a thread started by a view");
}
