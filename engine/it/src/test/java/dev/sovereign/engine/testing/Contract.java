package dev.sovereign.engine.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class of the contract suite: written against the engine's API and the storage port only
 * (ledgers from {@link TempDatabase}, stores through {@link Port}), never against one backend's files,
 * pragmas or SQL, so it runs unchanged on every backend ({@link TestBackend}). SQLite-only facts (the file's
 * mark, WAL, pragmas, the {@code sqlite3} shell) live in untagged classes beside it.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Tag("contract")
public @interface Contract {
}
