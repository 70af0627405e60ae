package dev.sovereign.engine.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A plain-text table with aligned columns, two spaces apart, headers in capitals. The last column is
 * not padded, so long free text (a detail, a sentence) can run on. Not thread-safe.
 */
final class Table {
    private final List<String> headers;
    private final List<String[]> rows = new ArrayList<>();

    Table(String... headers) {
        this.headers = List.of(headers);
    }

    Table row(Object... cells) {
        if (cells.length != headers.size()) {
            throw new IllegalArgumentException("expected " + headers.size() + " cells, got " + cells.length);
        }
        rows.add(Arrays.stream(cells).map(c -> c == null ? "-" : c.toString()).toArray(String[]::new));
        return this;
    }

    boolean isEmpty() {
        return rows.isEmpty();
    }

    void print(PrintWriter out) {
        int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headers.get(i).length();
        }
        for (String[] r : rows) {
            for (int i = 0; i < widths.length; i++) {
                widths[i] = Math.max(widths[i], r[i].length());
            }
        }
        out.println(line(headers.toArray(String[]::new), widths));
        rows.forEach(r -> out.println(line(r, widths)));
        out.flush();
    }

    private static String line(String[] cells, int[] widths) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < cells.length; i++) {
            if (i > 0) {
                b.append("  ");
            }
            b.append(cells[i]);
            if (i < cells.length - 1) {
                b.append(" ".repeat(widths[i] - cells[i].length()));
            }
        }
        return b.toString().stripTrailing();
    }

    /** Aligned {@code key  value} lines, for one result. */
    static void fields(PrintWriter out, List<String[]> pairs) {
        int width = pairs.stream().mapToInt(p -> p[0].length()).max().orElse(0);
        for (String[] p : pairs) {
            out.println("  " + p[0] + " ".repeat(width - p[0].length()) + "  " + p[1]);
        }
        out.flush();
    }
}
