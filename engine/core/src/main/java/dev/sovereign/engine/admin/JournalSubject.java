package dev.sovereign.engine.admin;

import java.util.Objects;

/**
 * What a page of the console is about: one actor, or one process (by its fencing identity). Immutable.
 *
 * @param kind what {@code id} names
 * @param id   the actor id, or the process identity ({@code proc_<uuid>})
 */
public record JournalSubject(Kind kind, String id) {
    public enum Kind {
        ACTOR,
        PROCESS
    }

    public JournalSubject {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(id, "id");
    }

    public static JournalSubject actor(String actor) {
        return new JournalSubject(Kind.ACTOR, actor);
    }

    public static JournalSubject process(String identity) {
        return new JournalSubject(Kind.PROCESS, identity);
    }

    /** Whether {@code e} names this subject: its actor column (actors), or its writer or resource (processes). */
    public boolean names(JournalEntry e) {
        return switch (kind) {
            case ACTOR -> id.equals(e.actor()) || ("actor".equals(e.resourceType()) && id.equals(e.resourceId()));
            case PROCESS ->
                (e.process() != null && id.equals(e.process().identity()))
                        || ("process".equals(e.resourceType()) && id.equals(e.resourceId()));
        };
    }
}
