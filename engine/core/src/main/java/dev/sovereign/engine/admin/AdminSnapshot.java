package dev.sovereign.engine.admin;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Everything the console shows except the journal, read in ONE read transaction, so the rows agree
 * with each other and with {@link #dataVersion()}. Immutable (the lists are unmodifiable).
 *
 * <p>Bounded: every actor, every running process and every unfinished message is included; finished
 * work is capped to the most recent rows ({@link AdminReader} documents the caps).
 *
 * @param takenAt   the reader's clock when the snapshot was read, epoch ms
 * @param lastSeq   the highest journal sequence number at that moment
 * @param lastToken the highest fencing token ever minted at that moment
 */
public record AdminSnapshot(Path database, int schemaVersion, long dataVersion, long takenAt, long lastSeq,
                            long lastToken, List<LeaseRow> leases, List<ProcessRow> processes,
                            List<AssignmentRow> assignments, List<AttemptRow> attempts, List<MessageRow> messages,
                            Optional<SupervisorTickRow> lastTick) {

    public AdminSnapshot {
        leases = List.copyOf(leases);
        processes = List.copyOf(processes);
        assignments = List.copyOf(assignments);
        attempts = List.copyOf(attempts);
        messages = List.copyOf(messages);
    }
}
