package dev.sovereign.console.ledger;

/**
 * One button of a page's filter: its key ({@code ALL}, {@code FAILED}, {@code fencing_token_stale}) and
 * its label with the database's count ({@code Failed 12}).
 */
public record FilterChoice(String key, String label) {}
