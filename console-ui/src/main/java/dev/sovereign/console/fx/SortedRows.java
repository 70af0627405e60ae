package dev.sovereign.console.fx;

import java.util.Comparator;
import java.util.List;
import javafx.beans.Observable;
import javafx.collections.ObservableList;
import javafx.collections.transformation.SortedList;
import javafx.scene.control.TableView;

/**
 * Makes a table sortable by clicking its headers (with the arrow), over a view model's rows.
 *
 * <p>A table's default sort policy cannot sort an unmodifiable list: it silently does nothing. So the
 * table shows a {@link SortedList} of the rows whose comparator is bound to the table's. A
 * {@code SortedList} re-sorts when rows are added, removed or replaced; a row updated in place (the
 * Leases page's items, so a renewal costs the table nothing, decision 0415) does not move by itself.
 * For those, {@code resortOn} names what changes after an in-place update: then, and only while a
 * column is sorted, the order is checked (no layout) and the list re-sorted only if it is out of order.
 * Unsorted (the default), nothing is checked and nothing moves. FX-thread confined.
 */
public final class SortedRows {
    private SortedRows() {}

    public static <T> SortedList<T> install(TableView<T> table, ObservableList<T> rows, Observable... resortOn) {
        SortedList<T> sorted = new SortedList<>(rows);
        sorted.comparatorProperty().bind(table.comparatorProperty());
        table.setItems(sorted);
        for (Observable o : resortOn) {
            o.addListener(x -> {
                Comparator<? super T> c = sorted.getComparator();
                if (c != null && !inOrder(sorted, c)) {
                    // the only way to make a SortedList sort again without touching its source
                    sorted.comparatorProperty().unbind();
                    sorted.setComparator(null);
                    sorted.comparatorProperty().bind(table.comparatorProperty());
                }
            });
        }
        return sorted;
    }

    static <T> boolean inOrder(List<T> rows, Comparator<? super T> c) {
        for (int i = 1, n = rows.size(); i < n; i++) {
            if (c.compare(rows.get(i - 1), rows.get(i)) > 0) {
                return false;
            }
        }
        return true;
    }

    /**
     * Text as people sort it: runs of digits by their value ({@code 9 < 10}, {@code pid 812 < pid 7101}),
     * the rest case-insensitively; blanks and dashes ("nothing") last.
     */
    public static final Comparator<String> NATURAL = SortedRows::compareNaturally;

    static int compareNaturally(String a, String b) {
        boolean noA = nothing(a);
        boolean noB = nothing(b);
        if (noA || noB) {
            return Boolean.compare(noA, noB);
        }
        int i = 0;
        int j = 0;
        while (i < a.length() && j < b.length()) {
            char x = a.charAt(i);
            char y = b.charAt(j);
            if (Character.isDigit(x) && Character.isDigit(y)) {
                int si = i;
                int sj = j;
                while (i < a.length() && Character.isDigit(a.charAt(i))) {
                    i++;
                }
                while (j < b.length() && Character.isDigit(b.charAt(j))) {
                    j++;
                }
                String da = a.substring(si, i).replaceFirst("^0+(?=.)", "");
                String db = b.substring(sj, j).replaceFirst("^0+(?=.)", "");
                int byLength = Integer.compare(da.length(), db.length());
                if (byLength != 0) {
                    return byLength;
                }
                int byDigits = da.compareTo(db);
                if (byDigits != 0) {
                    return byDigits;
                }
            } else {
                int c = Character.compare(Character.toLowerCase(x), Character.toLowerCase(y));
                if (c != 0) {
                    return c;
                }
                i++;
                j++;
            }
        }
        return Integer.compare(a.length() - i, b.length() - j);
    }

    private static boolean nothing(String s) {
        return s == null || s.isBlank() || s.equals("\u2014");
    }
}
