package dev.sovereign.engine.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** Keeps the engine's layering true (see ../shared/STYLE.md, "The shape of the house"). */
@AnalyzeClasses(packages = "dev.sovereign.engine", importOptions = ImportOption.DoNotIncludeTests.class)
class EngineLayeringTest {

    @ArchTest
    static final ArchRule sqlOnlyInTheStorageLayer = noClasses()
            .that().resideOutsideOfPackage("dev.sovereign.engine.internal.sqlite..")
            .should().dependOnClassesThat().resideInAnyPackage("java.sql..", "org.sqlite..")
            .because("SQL and the database file are touched only by the storage layer, so every write"
                    + " goes through one guarded BEGIN IMMEDIATE transaction");

    @ArchTest
    static final ArchRule noJavaFxInTheEngine = noClasses()
            .should().dependOnClassesThat().resideInAnyPackage("javafx..", "atlantafx..")
            .because("the engine is embedded headlessly by agents; the console depends on it, never the reverse");

    @ArchTest
    static final ArchRule picocliOnlyInTheCli = noClasses()
            .that().resideOutsideOfPackage("dev.sovereign.engine.cli..")
            .should().dependOnClassesThat().resideInAnyPackage("picocli..")
            .because("picocli is an optional dependency used only by the CLI; embedders do not carry it");

    @ArchTest
    static final ArchRule jacksonOnlyInTheCli = noClasses()
            .that().resideOutsideOfPackage("dev.sovereign.engine.cli..")
            .should().dependOnClassesThat().resideInAnyPackage("com.fasterxml.jackson..")
            .because("Jackson is an optional dependency used only by the CLI's --json output");

    @ArchTest
    static final ArchRule onlyTheCliPrintsOrExits = noClasses()
            .that().resideOutsideOfPackage("dev.sovereign.engine.cli..")
            .should().accessField(System.class, "out")
            .orShould().accessField(System.class, "err")
            .orShould().callMethod(System.class, "exit", int.class)
            .because("a library must not print or end its host's process");

    @ArchTest
    static final ArchRule domainDoesNotDependOnTheCli = noClasses()
            .that().resideOutsideOfPackage("dev.sovereign.engine.cli..")
            .should().dependOnClassesThat().resideInAPackage("dev.sovereign.engine.cli..")
            .because("the CLI is a client of the engine, like the console");
}
