package dev.sovereign.engine.admin;

import dev.sovereign.engine.base.LedgerLocation;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * Counts of what the ledger holds, read at one moment: the numbers behind {@code sovereign status}.
 * Every field is read from the database, none from this process's beliefs. The counts come from
 * separate autocommit reads, so under concurrent writers they may be a few commits apart from each
 * other; they are for display, never for decisions. Immutable and thread-safe.
 *
 * @param location           where the ledger lives: its file, or its server (shown with no secret)
 * @param connection         how this engine reaches it: a local file, or a server connection with or without
 *                           TLS and certificate verification (decision 0906)
 * @param schemaVersion      {@code PRAGMA user_version}
 * @param lastMigration      which Sovereign last migrated the file; null only for a file no
 *                           Sovereign has migrated since the record began (schema version 4)
 * @param lastToken          the highest fencing token ever minted (0 before the first grant)
 * @param lastSeq            the highest journal sequence number (0 for an empty journal)
 * @param events             how many fence events the journal holds
 * @param rejections         how many of them are {@code REJECTED}
 * @param actors             how many actors are configured
 * @param activeAttempts     execution attempts in state {@code ACTIVE}
 * @param assignmentsByState every assignment state, in lifecycle order, with its count (zeros included)
 * @param messagesByState    every message state, in lifecycle order, with its count (zeros included)
 * @param readAt             the engine clock's reading when the summary was taken (epoch ms)
 * @param history            the counter's epoch and the ledger's history: the last restore or bump, a report that
 *                           it went backwards (decisions 0604, 0605)
 * @param movedTo            where {@code sovereign copy} moved this ledger (it then takes no more writes, decision
 *                           0915), shown with no secret; {@code null} for a live ledger
 */
public record LedgerSummary(
        LedgerLocation location,
        ConnectionSecurity connection,
        int schemaVersion,
        LastMigration lastMigration,
        long lastToken,
        long lastSeq,
        long events,
        long rejections,
        long actors,
        long activeAttempts,
        Map<String, Long> assignmentsByState,
        Map<String, Long> messagesByState,
        long readAt,
        LedgerHistory history,
        String movedTo) {

    public LedgerSummary {
        Objects.requireNonNull(connection, "connection");
        Objects.requireNonNull(history, "history");
        assignmentsByState = Collections.unmodifiableMap(new LinkedHashMap<>(assignmentsByState));
        messagesByState = Collections.unmodifiableMap(new LinkedHashMap<>(messagesByState));
    }

    /**
     * The Sovereign that applied the file's latest recorded migration (forward-only, so the newest).
     *
     * @param schemaVersion the schema version it migrated the file to
     * @param version       its version, e.g. {@code 0.1.0}
     * @param commit        its Git commit, or {@code unknown}
     * @param migratedAt    when (epoch ms, the migrating process's clock)
     */
    public record LastMigration(int schemaVersion, String version, String commit, long migratedAt) {}
}
