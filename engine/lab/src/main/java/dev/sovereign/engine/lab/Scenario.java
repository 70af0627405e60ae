package dev.sovereign.engine.lab;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;

/**
 * One teaching scenario: it drives real processes through a situation ({@link #play}), then decides
 * from the journal and the ledger alone whether the fence held ({@link #check}). A fresh instance per
 * run; what it remembers between the two (ids, process identities) only says where to look.
 */
interface Scenario {
    /** The narrative's last step, added to every scenario. */
    String CHECK_STEP = "Check the journal and the ledger";

    ScenarioInfo info();

    /**
     * What this scenario shows on a ledger whose expiry is decided by the database server's clock
     * ({@code serverClock}, PostgreSQL) or by each process's own (SQLite). The same for most scenarios.
     */
    default ScenarioInfo info(boolean serverClock) {
        return info();
    }

    /** Plays the situation, one {@link LabRun#begin step} at a time. */
    void play(LabRun run) throws Inconclusive, InterruptedException, IOException;

    /** The checks, read from the journal and the ledger (never from what {@link #play} believes). */
    List<Check> check(LabRun run);

    /** The verdict's sentence when every check passed. */
    String heldHeadline();

    /**
     * Whether step {@code index} may wait for a class following step by step ({@link LabGate}, decision 0117):
     * true only where the step begins with the lab's own action or observation and nothing of the run in flight
     * depends on when it happens. The check is always held; by default nothing else is.
     */
    default boolean holdsBefore(int index) {
        return false;
    }

    /** Runs after the checks, before the bench stops the remaining workers. */
    default void teardown(LabRun run) throws InterruptedException {}

    static ScenarioInfo info(String name, String title, String summary, boolean faultSwitchApplies, String... steps) {
        List<String> all = new ArrayList<>(List.of(steps));
        all.add(CHECK_STEP);
        return new ScenarioInfo(name, title, summary, all, faultSwitchApplies);
    }
}
