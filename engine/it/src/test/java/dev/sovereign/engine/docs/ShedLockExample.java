package dev.sovereign.engine.docs;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.shedlock.SovereignLock;
import dev.sovereign.shedlock.SovereignLockProvider;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockingTaskExecutor.TaskResult;

/** A nightly job that runs on one node at a time, under a ShedLock lock kept in a Sovereign ledger. */
public final class ShedLockExample {
    private ShedLockExample() {}

    /**
     * Where the job's result goes. It remembers the highest fencing token that wrote to it and refuses a lower
     * one, so a node whose lock expired while it was paused cannot overwrite the report of the node that took the
     * lock over. (A database table does the same in the statement that writes: {@code UPDATE report SET ...,
     * token = ? WHERE token <= ?}.)
     */
    public static final class ReportStore {
        private long highestToken;
        private String report;

        public synchronized void write(long token, String text) {
            if (token < highestToken) {
                throw new IllegalStateException("stale writer: token " + token + " < " + highestToken);
            }
            highestToken = token;
            report = text;
        }

        public synchronized String report() {
            return report;
        }
    }

    /** Runs the nightly report under the lock "nightly-report"; false when the lock is not free. */
    public static boolean runNightlyReport(Path database, ReportStore store) throws Throwable {
        try (Engine engine = Engine.open(EngineConfig.forDatabase(database).build())) {
            LockingTaskExecutor executor = new DefaultLockingTaskExecutor(new SovereignLockProvider(engine));
            LockConfiguration lock = new LockConfiguration(
                    Instant.now(),
                    "nightly-report",
                    Duration.ofMinutes(10), // lockAtMostFor: a node that dies holding it delays the job this long
                    Duration.ofMinutes(1)); // lockAtLeastFor: no other node runs it again within the minute
            TaskResult<Long> result = executor.executeWithLock(
                    () -> {
                        long token = SovereignLock.requireToken(); // this run's fencing token
                        store.write(token, "nightly report, written under token " + token);
                        return token;
                    },
                    lock);
            return result.wasExecuted();
        }
    }
}
