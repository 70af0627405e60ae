/**
 * picocli, compiled from its own published sources for Java 17 (engine/picocli/pom.xml, decision 0321): the module
 * picocli's jar declares, so that the CLI reads it as before.
 */
module info.picocli {
    requires static java.sql;

    exports picocli;
}
