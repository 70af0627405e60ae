package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.Ledgers;
import java.nio.file.Path;
import java.time.Clock;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.Map;

/** Compares a long-lived reader's (incremental) snapshot with a full read by a reader opened just now. */
final class LeaseSnapshots {
    private LeaseSnapshots() {}

    /** A full read: a fresh reader has no previous snapshot, so it reads every actor's lease. */
    static AdminSnapshot fullRead(Path database, Clock clock) {
        try (AdminReader fresh = Ledgers.openReader(database, clock, ZoneOffset.UTC)) {
            return fresh.snapshot();
        }
    }

    /** Each shown process's lease count, by identity. */
    static Map<String, Integer> leaseCounts(AdminSnapshot s) {
        Map<String, Integer> counts = new HashMap<>();
        for (ProcessRow p : s.processes()) {
            counts.put(p.process().identity(), p.leasesHeld());
        }
        return counts;
    }

    static void assertSameLeases(AdminSnapshot incremental, AdminSnapshot full, String context) {
        assertThat(incremental.leases()).as("leases, %s", context).isEqualTo(full.leases());
        assertThat(leaseCounts(incremental))
                .as("process lease counts, %s", context)
                .isEqualTo(leaseCounts(full));
    }
}
