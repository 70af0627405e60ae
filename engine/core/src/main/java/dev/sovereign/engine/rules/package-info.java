/**
 * The rule book: who may acquire, renew, release, claim, finish, start an attempt, write a terminal state;
 * the refusal categories and the sentences that say why; the sanity checks that fail closed on a row the
 * engine cannot have written; the limits on arguments. Written once, here, and applied by every storage
 * backend inside its own write transaction (the backend reads the rows, asks these rules, and performs the
 * one compare-and-set they allow); a backend never words a refusal itself (an ArchUnit rule keeps that:
 * no class outside the core calls {@code Refusal.of}). Pure functions of what the transaction read: no
 * storage, no clock, no state. See docs/decisions/0008.
 */
package dev.sovereign.engine.rules;
