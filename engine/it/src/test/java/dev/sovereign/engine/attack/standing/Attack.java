package dev.sovereign.engine.attack.standing;

import java.util.List;

/**
 * One generated attack: the operations the engines make first, then strikes — each one transaction of
 * hand-written SQL — one after the other on the same ledger. A strike the database refuses leaves the ledger as
 * it was, so the next one meets the same rows: one ledger serves several strikes, and a try costs little more
 * than its strikes. Immutable.
 *
 * @param before  the engines' operations, in order
 * @param strikes the attacker's transactions, in order
 */
record Attack(List<Op> before, List<Strike> strikes) {
    @Override
    public String toString() {
        return "after " + before + ": " + strikes;
    }
}
