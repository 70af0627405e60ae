package dev.sovereign.console.fx;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import javafx.beans.InvalidationListener;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.text.Font;
import javafx.scene.text.FontWeight;
import javafx.scene.text.Text;

/**
 * Keeps every column at least as wide as its header and — for text columns made by {@link Ui#column} —
 * as its widest text (up to {@value #MAX_CONTENT} px), so a narrow window never shows "asg_7226d..." or
 * "St...": the table scrolls sideways instead (its constrained resize policy never shrinks a column below
 * its minimum). Widths are measured once per distinct text and font and remembered. Tables with more than
 * {@value #MAX_ROWS_MEASURED} rows (Leases at scale) fit their headers only: their columns carry fixed
 * minimums. FX-thread confined.
 */
public final class ColumnFit {
    static final String TEXT = "sovereign.column.text";
    private static final String OWN_MIN = "sovereign.column.ownMin";
    private static final double MAX_CONTENT = 380;
    private static final int MAX_ROWS_MEASURED = 2_000;
    /** Cell padding, the header's sort arrow and a little air. */
    private static final double PAD = 26;
    /** Room for the vertical scroll bar. */
    private static final double SCROLL_BAR = 16;

    private static final Text MEASURE = new Text();
    private static final Map<String, Double> WIDTHS = new LinkedHashMap<>(4_096, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Double> eldest) {
            return size() > 20_000;
        }
    };

    private ColumnFit() {}

    /**
     * A column whose cells are not plain text (chips, links) is measured by {@code text}: words as wide as what
     * its cell shows, padding included, so the column's minimum never clips it.
     */
    public static <S> void measureBy(TableColumn<S, ?> column, Function<S, String> text) {
        column.getProperties().put(TEXT, text);
    }

    /**
     * Sets {@code column}'s own minimum (what the fit never goes below) to {@code width}, also after a fit already
     * remembered an earlier one: a page that narrows a shared table's columns (the Journal page) keeps them narrow
     * when its rows change — and fits it again at once, so its widest text still widens it past {@code width}.
     */
    public static void ownMinimum(TableColumn<?, ?> column, double width) {
        column.getProperties().put(OWN_MIN, width);
        column.setMinWidth(width);
        if (column.getTableView() != null) {
            fit(column.getTableView());
        }
    }

    /**
     * Fits {@code table}'s columns again: for a live column whose text changes in a row already there (the fit runs
     * on its own only when rows come and go).
     */
    public static <S> void refit(TableView<S> table) {
        fit(table);
    }

    public static <S> void install(TableView<S> table) {
        InvalidationListener refit = o -> fit(table);
        ListChangeListener<S> onRows = c -> fit(table);
        // An invalidation listener, not a change listener: a change listener is told only when the new list is
        // not equals() to the old, and two empty lists are equal — a page whose rows come with the next poll
        // (an actor's journal) would leave the fit listening to the table's first list, never to its rows.
        List<ObservableList<S>> listened = new ArrayList<>(1);
        listened.add(table.getItems());
        table.itemsProperty().addListener(o -> {
            ObservableList<S> now = table.getItems();
            ObservableList<S> old = listened.set(0, now);
            if (old == now) {
                return;
            }
            if (old != null) {
                old.removeListener(onRows);
            }
            if (now != null) {
                now.addListener(onRows);
            }
            fit(table);
        });
        if (table.getItems() != null) {
            table.getItems().addListener(onRows);
        }
        table.getColumns().addListener(refit);
        table.widthProperty().addListener(o -> choosePolicy(table));
    }

    /**
     * The constrained policy fills the width but, when the minimums do not fit, pushes columns past the
     * right edge with no scroll bar to reach them. So: constrained while the minimums fit, unconstrained
     * (columns at their minimums, a horizontal scroll bar) when they do not.
     */
    static void choosePolicy(TableView<?> table) {
        double mins = 0;
        for (TableColumn<?, ?> c : table.getVisibleLeafColumns()) {
            mins += c.getMinWidth();
        }
        boolean fits = mins + SCROLL_BAR <= table.getWidth() || table.getWidth() <= 0;
        var policy =
                fits ? TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN : TableView.UNCONSTRAINED_RESIZE_POLICY;
        if (table.getColumnResizePolicy() != policy) {
            table.setColumnResizePolicy(policy);
        }
    }

    @SuppressWarnings("unchecked")
    static <S> void fit(TableView<S> table) {
        // the theme's text size (AtlantaFX: 14 px); a little wide is safe, narrow is what this prevents
        Font font = Font.font(Font.getDefault().getFamily(), 14);
        Font bold = Font.font(font.getFamily(), FontWeight.BOLD, font.getSize());
        Font mono = Font.font("monospace", font.getSize());
        ObservableList<S> items = table.getItems();
        boolean content = items != null && items.size() <= MAX_ROWS_MEASURED;
        for (TableColumn<S, ?> c : table.getColumns()) {
            Object own = c.getProperties().computeIfAbsent(OWN_MIN, k -> c.getMinWidth());
            double need = Math.max((Double) own, width(c.getText(), bold) + PAD);
            Function<S, String> text = (Function<S, String>) c.getProperties().get(TEXT);
            if (content && text != null) {
                Font f = c.getStyleClass().contains("mono") || c.getStyleClass().contains("token")
                        ? mono
                        : c.getStyleClass().contains("text-bold") ? bold : font;
                double widest = 0;
                for (S row : items) {
                    widest = Math.max(widest, width(text.apply(row), f));
                }
                need = Math.max(need, Math.min(MAX_CONTENT, widest + PAD));
            }
            need = Math.ceil(need);
            if (need != c.getMinWidth()) {
                c.setMinWidth(need);
                if (c.getPrefWidth() < need) {
                    c.setPrefWidth(need);
                }
            }
        }
        choosePolicy(table);
    }

    private static double width(String s, Font f) {
        if (s == null || s.isEmpty()) {
            return 0;
        }
        String key = f.getName() + '|' + f.getSize() + '|' + s;
        Double w = WIDTHS.get(key);
        if (w == null) {
            MEASURE.setFont(f);
            MEASURE.setText(s);
            w = MEASURE.getLayoutBounds().getWidth();
            WIDTHS.put(key, w);
        }
        return w;
    }
}
