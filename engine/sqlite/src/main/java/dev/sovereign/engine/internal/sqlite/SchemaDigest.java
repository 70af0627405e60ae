package dev.sovereign.engine.internal.sqlite;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The short way through the open check (decision 0321). A file whose schema rows other than its tables' (its triggers, indexes and
 * views) are, byte for byte, those of a fresh ledger of its schema version has nothing the check could name; so the SHA-256 of those rows in a
 * fresh ledger is kept, per version, in {@code schema-digest.txt}, and an open compares one digest instead of reading
 * every migration script to learn the text each object should have (a fifth of a CLI call's own time). Any
 * difference at all, a harmless one included (a space in a trigger, an index on a table of one's own, a file migrated
 * by a release that split its scripts differently), and the open runs the full check, which names what differs or
 * finds nothing wrong. A cryptographic hash because the file's writer is who the check distrusts: text made to
 * collide with a weaker one would pass for the guards.
 */
final class SchemaDigest {
    /** Next to this class; {@code SchemaDigestTest} says what to put in it when a migration is added. */
    static final String RESOURCE = "schema-digest.txt";

    private SchemaDigest() {}

    /** Whether {@code objects} (as {@link Migrator#schemaObjects} reads them) are a fresh ledger's of {@code version}. */
    static boolean matchesFreshLedger(int version, List<String[]> objects) {
        String kept = Kept.BY_VERSION.get(version);
        return kept != null && kept.equals(of(objects));
    }

    /**
     * The digest of the rows {@link Migrator#schemaObjects} reads, in the order of their type and name (the order of rows in
     * {@code sqlite_master} is not the schema's): each field as its length in UTF-8 bytes, a colon and the bytes, a
     * missing text as {@code -1:}, so no two different sets of rows read alike. Two rows of one type and name give a
     * text no kept digest equals.
     */
    static String of(List<String[]> objects) {
        Map<String, String[]> sorted = new TreeMap<>();
        for (String[] o : objects) {
            if (sorted.put(o[0] + '\u0000' + o[1], o) != null) {
                // two rows of one type and name (a schema written by hand): no fresh ledger has that, and folding
                // them into one would hide the other from the digest
                return "two objects named " + o[0] + " " + o[1];
            }
        }
        MessageDigest sha = sha256();
        for (String[] o : sorted.values()) {
            for (String field : o) {
                if (field == null) {
                    sha.update("-1:".getBytes(StandardCharsets.US_ASCII));
                } else {
                    byte[] bytes = field.getBytes(StandardCharsets.UTF_8);
                    sha.update((bytes.length + ":").getBytes(StandardCharsets.US_ASCII));
                    sha.update(bytes);
                }
            }
        }
        return HexFormat.of().formatHex(sha.digest());
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java has SHA-256", e);
        }
    }

    /** The kept digests, read on first use: "version digest" per line, '#' starts a comment. */
    private static final class Kept {
        static final Map<Integer, String> BY_VERSION = read();

        private static Map<Integer, String> read() {
            Map<Integer, String> byVersion = new HashMap<>();
            try (InputStream in = SchemaDigest.class.getResourceAsStream(RESOURCE)) {
                if (in == null) {
                    return byVersion; // every open takes the full check: slower, never weaker
                }
                BufferedReader lines = new BufferedReader(new InputStreamReader(in, StandardCharsets.UTF_8));
                for (String line = lines.readLine(); line != null; line = lines.readLine()) {
                    String t = line.strip();
                    if (t.isEmpty() || t.startsWith("#")) {
                        continue;
                    }
                    String[] parts = t.split("\\s+");
                    byVersion.put(Integer.parseInt(parts[0]), parts[1]);
                }
            } catch (IOException | RuntimeException e) {
                return new HashMap<>(); // unreadable: the full check, as without the file
            }
            return byVersion;
        }
    }
}
