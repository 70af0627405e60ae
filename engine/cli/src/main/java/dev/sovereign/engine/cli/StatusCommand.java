package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.NullNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.ConnectionSecurity;
import dev.sovereign.engine.admin.LedgerHistory;
import dev.sovereign.engine.admin.LedgerMetrics;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.FencingTokens;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.process.ProcessInfo.Liveness;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;

/**
 * {@code sovereign status}: the database, how it is reached (a local file, or a server connection with or
 * without TLS and certificate verification, decision 0906), its schema version, the processes (live / stale / stopped,
 * on their own recorded heartbeat interval), the leases, the counts and the last token. This call only
 * reads, so it registers no process of its own (docs/decisions/0304); the filter below still leaves its
 * identity out, should a future change make it write.
 */
@Command(name = "status", description = "Show the database, processes, leases, counts and last token.")
final class StatusCommand extends EngineCommand {
    @Override
    protected int run(Engine engine, Output out) {
        LedgerSummary s = engine.summary();
        LedgerMetrics size = engine.metrics();
        long now = s.readAt();
        boolean ownIsEphemeral = SovereignCommand.of(spec).process() == null;
        Map<Liveness, Long> processes = new EnumMap<>(Liveness.class);
        for (Liveness l : Liveness.values()) {
            processes.put(l, 0L);
        }
        for (ProcessInfo p : engine.processes().list()) {
            if (!(ownIsEphemeral && p.identity().equals(engine.processIdentity()))) {
                processes.merge(p.livenessAt(now, EngineConfig.STALE_AFTER_MISSED_BEATS), 1L, Long::sum);
            }
        }
        List<Lease> leases = engine.leases().list();
        long live = leases.stream().filter(l -> !l.isExpiredAt(now)).count();
        long expired = leases.size() - live;

        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("database", s.location().toString());
            o.put("schema_version", s.schemaVersion());
            LedgerSummary.LastMigration m0 = s.lastMigration();
            if (m0 == null) {
                o.putNull("last_migrated_by");
            } else {
                ObjectNode mb = o.putObject("last_migrated_by");
                mb.put("version", m0.version());
                mb.put("commit", m0.commit());
                mb.put("schema_version", m0.schemaVersion());
                mb.put("at", m0.migratedAt());
            }
            o.put("lab_sandbox", engine.isLabSandbox());
            o.put("moved_to", s.movedTo());
            o.put("now", now);
            o.put("last_token", s.lastToken());
            o.put("last_seq", s.lastSeq());
            o.put("events", s.events());
            o.put("rejections", s.rejections());
            o.put("actors", s.actors());
            ObjectNode p = o.putObject("processes");
            processes.forEach((k, v) -> p.put(k.name().toLowerCase(Locale.ROOT), v));
            ObjectNode l = o.putObject("leases");
            l.put("live", live);
            l.put("expired", expired);
            o.put("active_attempts", s.activeAttempts());
            ObjectNode a = o.putObject("assignments");
            s.assignmentsByState().forEach((k, v) -> a.put(k.toLowerCase(Locale.ROOT), v));
            ObjectNode m = o.putObject("messages");
            s.messagesByState().forEach((k, v) -> m.put(k.toLowerCase(Locale.ROOT), v));
            // added last, so every earlier field keeps its place (decision 0906)
            ConnectionSecurity cs = s.connection();
            ObjectNode conn = o.putObject("connection");
            conn.put("kind", cs.kind().name().toLowerCase(Locale.ROOT));
            conn.put("encrypted", cs.encrypted());
            conn.put("protocol", cs.protocol());
            conn.put("cipher", cs.cipher());
            conn.put("sslmode", cs.sslmode());
            conn.put("verification", cs.verification().name().toLowerCase(Locale.ROOT));
            conn.put("text", cs.describe());
            // added after connection, so every earlier field keeps its place (decisions 0604, 0605)
            LedgerHistory h = s.history();
            o.put("epoch", h.epoch());
            o.set("last_epoch_start", entry(h.lastEpochStart()));
            o.set("went_backwards", entry(h.wentBackwards()));
            o.put("alarm", h.alarm());
            // added after alarm, so every earlier field keeps its place (issue 29 item 4, decision 0319)
            o.put("size_bytes", size.sizeBytes());
            ObjectNode rows = o.putObject("rows");
            size.rowsByTable().forEach(rows::put);
            if (size.oldestEventAt() < 0) {
                o.putNull("oldest_event_at");
            } else {
                o.put("oldest_event_at", size.oldestEventAt());
            }
            o.put("events_last_day", size.eventsLastDay());
            // retention (decision 0018), after the size fields
            o.put("journal_kept_ms", size.retention().keepJournal().toMillis());
            o.put("pruned_rows", size.retention().prunedRows());
            o.put("runs_kept_ms", size.retention().keepRuns().toMillis());
            o.put("messages_kept_ms", size.retention().keepMessages().toMillis());
            o.put("processes_kept_ms", size.retention().keepProcesses().toMillis());
            o.put("pruned_runs", size.retention().prunedRuns());
            o.put("pruned_messages", size.retention().prunedMessages());
            o.put("pruned_processes", size.retention().prunedProcesses());
            if (size.retention().lastBackupAt() < 0) {
                o.putNull("last_backup_at");
            } else {
                o.put("last_backup_at", size.retention().lastBackupAt());
            }
            if (size.retention().lastPrunedAt() < 0) {
                o.putNull("last_pruned_at");
            } else {
                o.put("last_pruned_at", size.retention().lastPrunedAt());
            }
            out.emit(o);
            return ExitCode.OK;
        }

        List<String[]> f = new ArrayList<>();
        f.add(new String[] {
            "database",
            s.location() + " (schema version " + s.schemaVersion()
                    + (engine.isLabSandbox()
                            ? "; a lab sandbox: its terminal fence can be switched off for teaching"
                            : "")
                    + ")"
        });
        if (s.movedTo() != null) {
            f.add(new String[] {
                "moved to",
                s.movedTo() + " by 'sovereign copy': this ledger takes no more writes; that" + " one is the live ledger"
            });
        }
        f.add(new String[] {"connection", s.connection().describe()});
        LedgerSummary.LastMigration m0 = s.lastMigration();
        f.add(new String[] {
            "migrated by",
            m0 == null
                    ? "not recorded (no Sovereign has migrated it since schema version 4)"
                    : "sovereign " + m0.version() + " (commit " + m0.commit() + "), to schema version "
                            + m0.schemaVersion() + ", " + out.times().wall(m0.migratedAt())
        });
        f.add(new String[] {"last token", FencingTokens.describe(s.lastToken())});
        LedgerHistory h = s.history();
        LedgerHistory.Entry start = h.lastEpochStart();
        f.add(new String[] {
            "epoch",
            h.epoch()
                    + (start == null
                            ? " (never restored or bumped)"
                            : " (since the " + start.kind() + " at "
                                    + out.times().wall(start.at()) + ")")
        });
        if (h.alarm() != null) {
            f.add(new String[] {"ALARM", h.alarm()});
        }
        f.add(new String[] {
            "journal",
            count(s.events(), "event") + ", " + count(s.rejections(), "rejection") + ", last seq " + s.lastSeq()
                    + (size.oldestEventAt() < 0
                            ? ""
                            : "; oldest " + out.times().wall(size.oldestEventAt()) + ", "
                                    + count(size.eventsLastDay(), "event") + " in the last 24 hours")
        });
        f.add(new String[] {"on disk", bytes(size.sizeBytes()) + " (" + size.describeRows() + ")"});
        f.add(new String[] {
            "retention",
            "journal kept " + Times.span(size.retention().keepJournal())
                    + (size.retention().isDefault() ? " (the default)" : "") + "; "
                    + (size.retention().lastPrunedAt() < 0
                            ? "never pruned"
                            : count(size.retention().prunedRows(), "row") + " pruned, last "
                                    + out.times().wall(size.retention().lastPrunedAt()))
                    + (size.retention().lastBackupAt() < 0
                            ? ""
                            : "; last backup "
                                    + out.times().wall(size.retention().lastBackupAt()))
                    + "; finished runs " + Times.span(size.retention().keepRuns()) + ", messages "
                    + Times.span(size.retention().keepMessages()) + ", stopped processes "
                    + Times.span(size.retention().keepProcesses())
        });
        f.add(new String[] {
            "processes",
            processes.get(Liveness.LIVE) + " live, " + processes.get(Liveness.STALE)
                    + " stale, "
                    + (processes.get(Liveness.NO_HEARTBEAT) == 0
                            ? ""
                            : processes.get(Liveness.NO_HEARTBEAT) + " CLI without heartbeat, ")
                    + processes.get(Liveness.STOPPED) + " stopped"
        });
        f.add(new String[] {"actors", Long.toString(s.actors())});
        f.add(new String[] {"leases", live + " live, " + expired + " expired"});
        f.add(new String[] {"attempts", s.activeAttempts() + " active"});
        f.add(new String[] {"assignments", nonZero(s.assignmentsByState())});
        f.add(new String[] {"messages", nonZero(s.messagesByState())});
        out.fields("Sovereign ledger as of " + out.times().wall(now) + ".", f);
        if (!leases.isEmpty()) {
            out.line("");
            out.table(LeaseListCommand.table(
                    leases, new Times(SovereignCommand.of(spec).environment().zone(), now)));
        }
        return ExitCode.OK;
    }

    private static JsonNode entry(LedgerHistory.Entry e) {
        if (e == null) {
            return NullNode.getInstance();
        }
        ObjectNode o = JsonShapes.object();
        o.put("seq", e.seq());
        o.put("at", e.at());
        o.put("kind", e.kind());
        o.put("epoch", e.epoch());
        o.put("from_token", e.fromToken());
        o.put("to_token", e.toToken());
        o.put("seen_token", e.seenToken());
        o.put("process", e.process());
        o.put("backup_id", e.backupId());
        o.put("detail", e.detail());
        return o;
    }

    /** A size in bytes as people read it (the console says sizes with the same words: {@link LedgerMetrics#bytes}). */
    static String bytes(long n) {
        return LedgerMetrics.bytes(n);
    }

    private static String count(long n, String noun) {
        return n + " " + noun + (n == 1 ? "" : "s");
    }

    private static String nonZero(Map<String, Long> byState) {
        String s = byState.entrySet().stream()
                .filter(e -> e.getValue() > 0)
                .map(e -> e.getValue() + " " + e.getKey().toLowerCase(Locale.ROOT))
                .collect(Collectors.joining(", "));
        return s.isEmpty() ? "none" : s;
    }
}
