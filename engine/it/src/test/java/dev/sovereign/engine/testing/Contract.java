package dev.sovereign.engine.testing;

import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.Tag;

/**
 * Marks a test class of the contract suite: an abstract class written against the engine's API and the storage
 * port only (ledgers from {@link TempDatabase}, stores through {@link Port}), never against one backend's files,
 * pragmas or SQL, so it runs unchanged on every backend ({@link TestBackend}): each backend's module has a
 * subclass of it that names the backend (decision 0015), and the subclasses carry the tag. SQLite-only facts (the
 * file's mark, WAL, pragmas, the {@code sqlite3} shell) live in untagged classes beside it, or in its SQLite
 * subclass when they belong to its tests.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Tag("contract")
public @interface Contract {}
