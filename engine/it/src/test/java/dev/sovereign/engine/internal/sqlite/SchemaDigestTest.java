package dev.sovereign.engine.internal.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.testing.RawSql;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The open check's short way (decision 0321): a fresh ledger's triggers, indexes and views match the digest kept for
 * its version, so an open need not read the migration scripts; anything else, harmless or not, takes the full check,
 * and the full check alone decides. The refusals themselves are {@link ForeignSchemaObjectsTest}'s and the standing
 * attack suite's: with the short way made to always say "matches", they go red.
 */
class SchemaDigestTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private RawSql raw;

    @BeforeEach
    void createLedger() {
        raw = new RawSql(temp.file());
        try (Engine e = Engine.open(EngineConfig.forDatabase(temp.file())
                .clock(new SettableClock())
                .heartbeat(false)
                .build())) {
            e.actors().add("operator");
        }
    }

    @Test
    void theKeptDigestIsThatOfAFreshLedgerOfTheLatestVersion() throws Exception {
        String fresh;
        try (Connection c = raw.connect(false)) {
            assertThat(Migrator.pragma(c, "user_version")).isEqualTo(Migrator.LATEST);
            fresh = SchemaDigest.of(Migrator.schemaObjects(c));
        }
        assertThat(keptLines())
                .as("engine/sqlite/src/main/resources/dev/sovereign/engine/internal/sqlite/" + SchemaDigest.RESOURCE
                        + " must hold the line '" + Migrator.LATEST + " " + fresh + "' for the latest schema version"
                        + " (a migration was added or changed the schema's objects)")
                .contains(Migrator.LATEST + " " + fresh);
        try (Connection c = raw.connect(false)) {
            assertThat(SchemaDigest.matchesFreshLedger(Migrator.LATEST, Migrator.schemaObjects(c)))
                    .isTrue();
            assertThat(Migrator.guardProblems(c)).isEmpty();
        }
    }

    /** A space more in one guard changes nothing it does: the digest differs, the full check finds nothing. */
    @Test
    void aGuardWhoseSpacingChangedTakesTheFullCheckWhichFindsNothing() throws Exception {
        String guard = raw.text("SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name LIMIT 1");
        String sql = raw.text("SELECT sql FROM sqlite_master WHERE name = '" + guard + "'");
        raw.run(false, "DROP TRIGGER " + guard, sql.replaceFirst("(?i)\\bBEGIN\\b", "BEGIN "));

        try (Connection c = raw.connect(false)) {
            assertThat(SchemaDigest.matchesFreshLedger(Migrator.LATEST, Migrator.schemaObjects(c)))
                    .isFalse();
            assertThat(Migrator.guardProblems(c)).isEmpty();
        }
    }

    /** The same guard with a different body: the digest differs, and the full check names it. */
    @Test
    void aGuardWithOtherCodeTakesTheFullCheckWhichNamesIt() throws Exception {
        String guard = raw.text("SELECT name FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'fence_events'"
                + " ORDER BY name LIMIT 1");
        raw.run(
                false,
                "DROP TRIGGER " + guard,
                "CREATE TRIGGER " + guard + " BEFORE DELETE ON fence_events BEGIN SELECT 1; END");

        try (Connection c = raw.connect(false)) {
            assertThat(SchemaDigest.matchesFreshLedger(Migrator.LATEST, Migrator.schemaObjects(c)))
                    .isFalse();
            assertThat(Migrator.guardProblems(c)).containsExactly("guard " + guard + " was replaced by different code");
        }
    }

    /**
     * Two rows of one type and name (only a schema written by hand has them): whichever comes first, the genuine
     * guard's text does not vouch for the other.
     */
    @Test
    void twoObjectsOfOneNameNeverTakeTheShortWay() throws Exception {
        try (Connection c = raw.connect(false)) {
            List<String[]> objects = Migrator.schemaObjects(c);
            String[] guard = objects.stream()
                    .filter(o -> o[0].equals("trigger"))
                    .findFirst()
                    .orElseThrow();
            String[] impostor = {
                guard[0],
                guard[1],
                guard[2],
                "CREATE TRIGGER " + guard[1] + " AFTER INSERT ON " + guard[2] + " BEGIN SELECT 1; END"
            };
            List<String[]> impostorFirst = new java.util.ArrayList<>(objects);
            impostorFirst.add(0, impostor);
            List<String[]> impostorLast = new java.util.ArrayList<>(objects);
            impostorLast.add(impostor);
            assertThat(SchemaDigest.matchesFreshLedger(Migrator.LATEST, impostorFirst))
                    .isFalse();
            assertThat(SchemaDigest.matchesFreshLedger(Migrator.LATEST, impostorLast))
                    .isFalse();
            assertThat(SchemaDigest.matchesFreshLedger(Migrator.LATEST, objects))
                    .isTrue();
        }
    }

    /** Another version's file never matches the latest one's digest, and an unknown version has none. */
    @Test
    void onlyTheVersionWhoseDigestItIsMatches() throws Exception {
        try (Connection c = raw.connect(false)) {
            List<String[]> objects = Migrator.schemaObjects(c);
            assertThat(SchemaDigest.matchesFreshLedger(Migrator.LATEST - 1, objects))
                    .isFalse();
            assertThat(SchemaDigest.matchesFreshLedger(Migrator.LATEST + 1, objects))
                    .isFalse();
            assertThat(SchemaDigest.matchesFreshLedger(0, objects)).isFalse();
        }
    }

    private static List<String> keptLines() throws IOException {
        try (InputStream in = SchemaDigest.class.getResourceAsStream(SchemaDigest.RESOURCE)) {
            assertThat(in).as(SchemaDigest.RESOURCE).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8).lines().toList();
        }
    }
}
