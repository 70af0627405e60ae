package dev.sovereign.console.fx;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.function.Function;
import javafx.beans.InvalidationListener;
import javafx.beans.Observable;
import javafx.beans.WeakInvalidationListener;
import javafx.beans.property.ReadOnlyLongProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.value.ObservableValue;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.util.Callback;

/**
 * The cells of one table whose content changes with the console clock (countdowns, "3 s ago"),
 * refreshed by ONE clock listener that visits only the cells on screen, and only while the table is
 * in a scene (a hidden page costs nothing; it catches up when shown again).
 *
 * <p>Pair it with painted content ({@link TickingText}, {@link CountdownGauge}): a tick then
 * repaints a few dozen canvases and lays nothing out. A {@code Label} whose text changes every tick
 * would make the table lay out and re-bind every visible cell ten times a second (decision 0415).
 * FX-thread confined.
 *
 * @param <S> the table's row type
 */
public final class ClockedCells<S> {
    private final ReadOnlyLongProperty now;
    private final Set<Cell<S, ?>> shown = Collections.newSetFromMap(new IdentityHashMap<>());
    private final InvalidationListener onTick;

    /** Starts refreshing {@code table}'s clocked cells on every change of {@code now}. */
    public ClockedCells(TableView<S> table, ReadOnlyLongProperty now) {
        this.now = now;
        onTick = o -> {
            if (table.getScene() != null) {
                refreshAll();
            }
        };
        // Held by the table, registered weakly: a discarded page does not stay reachable from the clock.
        table.getProperties().put(ClockedCells.class, onTick);
        now.addListener(new WeakInvalidationListener(onTick));
        table.sceneProperty().addListener((obs, was, scene) -> {
            if (scene != null) {
                refreshAll();
            }
        });
    }

    /**
     * Also refreshes the cells on screen whenever {@code trigger} changes: for cells whose value is
     * constant (so a new row does not lay the table out) but whose content follows the rows.
     */
    public ClockedCells<S> refreshOn(Observable trigger) {
        trigger.addListener(new WeakInvalidationListener(onTick));
        return this;
    }

    public long now() {
        return now.get();
    }

    private void refreshAll() {
        long t = now.get();
        for (Cell<S, ?> c : shown) {
            c.refresh(t);
        }
    }

    /** A column of painted text computed from the row and the clock. */
    public TableColumn<S, S> textColumn(
            String title, double width, String idPrefix, Function<S, String> id, BiFunction<S, Long, String> text) {
        return column(title, width, f -> new ReadOnlyObjectWrapper<>(f.getValue()), cells -> new Cell<S, S>(cells) {
            private final TickingText painted = new TickingText();

            {
                painted.getStyleClass().add("plain");
                painted.setFont(getFont());
                fontProperty().addListener((o, a, f) -> painted.setFont(f));
            }

            @Override
            protected void show(S row, long at) {
                painted.setId(idPrefix + id.apply(row));
                painted.setText(text.apply(row, at));
                setGraphic(painted);
            }
        });
    }

    /** A column whose cells are {@link Cell}s made by {@code cell}. */
    public <T> TableColumn<S, T> column(
            String title,
            double width,
            Callback<TableColumn.CellDataFeatures<S, T>, ObservableValue<T>> value,
            Function<ClockedCells<S>, Cell<S, T>> cell) {
        TableColumn<S, T> c = new TableColumn<>(title);
        c.setPrefWidth(width);
        c.setMinWidth(width); // painted content cannot ask for room: the width given is what it needs
        c.setCellValueFactory(value);
        c.setCellFactory(col -> cell.apply(this));
        return c;
    }

    /**
     * A cell that also changes with the clock: while it shows a value it is refreshed on every tick.
     * Subclasses draw in {@link #show}; an empty cell shows nothing.
     */
    public abstract static class Cell<S, T> extends TableCell<S, T> {
        private final ClockedCells<S> cells;

        protected Cell(ClockedCells<S> cells) {
            this.cells = cells;
        }

        @Override
        protected final void updateItem(T value, boolean empty) {
            super.updateItem(value, empty);
            if (empty || value == null) {
                cells.shown.remove(this);
                setGraphic(null);
                setText(null);
            } else {
                cells.shown.add(this);
                show(value, cells.now());
            }
        }

        final void refresh(long at) {
            T value = getItem();
            if (value != null && !isEmpty()) {
                show(value, at);
            }
        }

        /** Shows {@code value} as it is at {@code at} (the console clock). Called on every tick: keep it cheap. */
        protected abstract void show(T value, long at);
    }
}
