package dev.sovereign.engine.attack.standing;

import java.sql.Connection;

/**
 * What a strike needs to know of the ledger it strikes to write its SQL: the backend, the true time, who the victim
 * and the attacker are, the names of the actors in play and the owner's connection (to read the tables' columns).
 * A try's {@link World} is one; a nemesis striking a running ledger is another ({@link HostileSql}).
 */
interface Scene {
    Dialect dialect();

    /** The true time: the clock the database's guards read (the server's on PostgreSQL). */
    long now();

    /** The process the strike is aimed at (A, whose live grants it prefers). */
    String victim();

    /** The process whose login the attacker holds (B): a forged row names it, or the victim. */
    String attacker();

    /** The actor the operations call {@code name}: "w", fought over; "x", another. */
    String actor(String name);

    Connection owner();
}
