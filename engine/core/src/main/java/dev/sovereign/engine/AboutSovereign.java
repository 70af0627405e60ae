package dev.sovereign.engine;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What {@code sovereign --version} and the console's About box say, from one place so they cannot
 * disagree: the version, the Git commit the build was made from, and the schema version each storage
 * backend on the class path writes (for SQLite, its latest migration). Immutable and thread-safe.
 *
 * @param version        the build's version ({@link SovereignVersion#version()})
 * @param commit         the build's abbreviated commit, or {@code unknown}
 * @param schemaVersions backend name to the latest schema version it writes, in class-path order
 */
public record AboutSovereign(String version, String commit, Map<String, Integer> schemaVersions) {
    public AboutSovereign {
        schemaVersions = Collections.unmodifiableMap(new LinkedHashMap<>(schemaVersions));
    }

    /** This build, with the backends found on the class path. */
    public static AboutSovereign current() {
        SovereignVersion v = SovereignVersion.current();
        return new AboutSovereign(v.version(), v.commit(), SovereignVersion.schemaVersions());
    }

    /** The lines, e.g. {@code sovereign 0.1.0}, {@code commit 1a2b3c4d5e6f}, {@code schema sqlite v4}. */
    public List<String> lines() {
        List<String> out = new ArrayList<>();
        out.add("sovereign " + version);
        out.add("commit " + commit);
        if (schemaVersions.isEmpty()) {
            out.add("schema: no storage backend on the class path");
        }
        schemaVersions.forEach((name, v) -> out.add("schema " + name + " v" + v));
        return out;
    }
}
