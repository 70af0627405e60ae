package dev.sovereign.engine.worker;

/**
 * One thing a {@link Worker} did or saw, for its output: one line each, with tokens.
 *
 * @param kind     what happened: {@code waiting}, {@code hosting}, {@code lost}, {@code claimed},
 *                 {@code completed}, {@code ran}, {@code refused}, {@code released}, {@code paused},
 *                 {@code resumed}, {@code skewed}, {@code error}, {@code stopped}
 * @param actor    the hosted actor
 * @param resource the message or assignment concerned, or null
 * @param token    the token granted, used or lost, or null
 * @param detail   a short sentence
 */
public record WorkerEvent(String kind, String actor, String resource, Long token, String detail) {
    /** A human line: {@code hosting  operator  token 12  — until 10:42:07}. */
    public String toLine() {
        StringBuilder b = new StringBuilder(String.format("%-9s %s", kind, actor));
        if (resource != null) {
            b.append(' ').append(resource);
        }
        if (token != null) {
            b.append(" token ").append(token);
        }
        if (detail != null && !detail.isEmpty()) {
            b.append(" — ").append(detail);
        }
        return b.toString();
    }
}
