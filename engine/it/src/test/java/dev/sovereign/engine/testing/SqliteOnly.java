package dev.sovereign.engine.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test method inside a {@link Contract} class that states a SQLite-only fact (raw SQL on the file, a
 * second file, the lab sandbox's mark): the contract run of another backend excludes it
 * ({@code excludedGroups=sqlite-only}), and that backend's module proves the same property its own way.
 */
@Target({ElementType.METHOD, ElementType.TYPE})
@Retention(RetentionPolicy.RUNTIME)
@Tag("sqlite-only")
public @interface SqliteOnly {
}
