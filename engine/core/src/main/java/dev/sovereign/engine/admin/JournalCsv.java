package dev.sovereign.engine.admin;

import java.time.Instant;
import java.util.List;

/**
 * The journal as CSV, RFC 4180: records end with CRLF; a field is quoted when it contains a comma,
 * a double quote, CR or LF, and a double quote inside it is doubled. Empty fields stand for null.
 * Stateless and thread-safe.
 */
public final class JournalCsv {
    /** The header record; the column names match the CLI's JSON field names. */
    public static final List<String> COLUMNS = List.of(
            "seq",
            "at",
            "at_ms",
            "kind",
            "resource_type",
            "resource_id",
            "actor",
            "process",
            "process_label",
            "token",
            "presented_token",
            "current_token",
            "category",
            "detail",
            "sentence");

    private JournalCsv() {}

    public static String header() {
        return record(COLUMNS);
    }

    /** One event as one CSV record, CRLF included. */
    public static String row(JournalEntry e) {
        ProcessRef p = e.process();
        return record(List.of(
                Long.toString(e.seq()),
                Instant.ofEpochMilli(e.at()).toString(),
                Long.toString(e.at()),
                e.kind(),
                text(e.resourceType()),
                text(e.resourceId()),
                text(e.actor()),
                p == null ? "" : p.identity(),
                p == null ? "" : text(p.label()),
                number(e.token()),
                number(e.presentedToken()),
                number(e.currentToken()),
                text(e.category()),
                text(e.detail()),
                text(e.sentence())));
    }

    private static String record(List<String> fields) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < fields.size(); i++) {
            if (i > 0) {
                sb.append(',');
            }
            sb.append(quote(fields.get(i)));
        }
        return sb.append("\r\n").toString();
    }

    /** Quotes {@code field} only when RFC 4180 requires it. */
    public static String quote(String field) {
        if (field.indexOf(',') < 0 && field.indexOf('"') < 0 && field.indexOf('\r') < 0 && field.indexOf('\n') < 0) {
            return field;
        }
        return '"' + field.replace("\"", "\"\"") + '"';
    }

    private static String text(String s) {
        return s == null ? "" : s;
    }

    private static String number(Long n) {
        return n == null ? "" : n.toString();
    }
}
