package dev.sovereign.console.testing;

import dev.sovereign.console.fx.TickingText;
import java.util.List;
import javafx.geometry.BoundingBox;
import javafx.geometry.Bounds;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.control.Control;
import javafx.scene.control.Labeled;
import javafx.scene.control.ListCell;
import javafx.scene.control.ListView;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.SplitPane;
import javafx.scene.control.TableCell;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableRow;
import javafx.scene.control.TableView;
import javafx.scene.text.Text;
import javafx.scene.text.TextFlow;

/**
 * What "nothing is cut off" means, checked on a laid-out scene (FX thread): no text drawn with an ellipsis, no
 * control beyond the window's edge or outside the pane that clips it, whole table rows counted.
 */
public final class LayoutChecks {
    private LayoutChecks() {}

    /** The refusal's sentence, the column an operator reads, lies inside the table's width: never scrolled away. */
    public static void sentenceInSight(TableView<?> table, List<String> out, String where) {
        columnInSight(table, "What happened", out, where);
    }

    /** Adds to {@code out} when {@code table}'s column {@code title} is not whole in sight without scrolling sideways. */
    public static void columnInSight(TableView<?> table, String title, List<String> out, String where) {
        // the width rows are drawn in: the table's, less a vertical scroll bar when one shows
        double bar = 0;
        for (Node n : table.lookupAll(".scroll-bar")) {
            if (n instanceof javafx.scene.control.ScrollBar sb
                    && sb.getOrientation() == javafx.geometry.Orientation.VERTICAL
                    && sb.isVisible()) {
                bar = sb.getWidth();
            }
        }
        double x = 0;
        for (TableColumn<?, ?> c : table.getVisibleLeafColumns()) {
            if (title.equals(c.getText())) {
                if (x + c.getWidth() > table.getWidth() - bar + 0.5) {
                    out.add(where + "\"" + title + "\" spans " + Math.round(x) + ".." + Math.round(x + c.getWidth())
                            + " in a " + Math.round(table.getWidth()) + " px table");
                }
                return;
            }
            x += c.getWidth();
        }
        out.add(where + "no \"" + title + "\" column");
    }

    /**
     * Adds to {@code out} when {@code table}'s column {@code title} is narrower than the text of any of its rows (up
     * to 380 px, the fit's cap) in the font its drawn cells use, with their padding: the rows scrolled out of sight
     * too, so the rule holds wherever the operator scrolls.
     */
    public static void columnHoldsItsText(TableView<?> table, String title, List<String> out, String where) {
        for (TableColumn<?, ?> c : table.getVisibleLeafColumns()) {
            if (!title.equals(c.getText())) {
                continue;
            }
            TableCell<?, ?> drawn = null;
            for (Node n : table.lookupAll(".table-cell")) {
                if (n instanceof TableCell<?, ?> cell && cell.getTableColumn() == c && !cell.isEmpty()) {
                    drawn = cell;
                }
            }
            if (drawn == null) {
                out.add(where + "no drawn cell in \"" + title + "\"");
                return;
            }
            Labeled shows = drawn.getGraphic() instanceof Labeled l ? l : drawn;
            double room = c.getWidth()
                    - drawn.snappedLeftInset()
                    - drawn.snappedRightInset()
                    - shows.snappedLeftInset()
                    - shows.snappedRightInset();
            Text measure = new Text();
            measure.setFont(shows.getFont());
            for (int i = 0; i < table.getItems().size(); i++) {
                if (c.getCellData(i) instanceof String text) {
                    measure.setText(text);
                    double need = Math.min(380, measure.getLayoutBounds().getWidth());
                    if (need > room + 0.5) {
                        out.add(where + "\"" + title + "\" is " + Math.round(room) + " px inside, \"" + text
                                + "\" needs " + Math.round(need));
                    }
                }
            }
            return;
        }
        out.add(where + "no \"" + title + "\" column");
    }

    /**
     * Adds to {@code out} when {@code list} scrolls sideways or a text in one of its drawn cells is cut: past the
     * list's right edge or below its cell's bottom (a wrapped description whose cell is too short).
     */
    public static void listCellsWhole(ListView<?> list, List<String> out, String where) {
        for (Node n : list.lookupAll(".scroll-bar")) {
            if (n instanceof ScrollBar sb && sb.getOrientation() == Orientation.HORIZONTAL && sb.isVisible()) {
                out.add(where + "#" + list.getId() + " scrolls sideways");
            }
        }
        Node viewport = list.lookup(".clipped-container");
        Bounds view = viewport.localToScene(viewport.getLayoutBounds());
        for (Node n : list.lookupAll(".list-cell")) {
            if (!(n instanceof ListCell<?> cell) || cell.isEmpty() || !cell.isVisible()) {
                continue;
            }
            Bounds inCell = cell.localToScene(cell.getLayoutBounds());
            for (Node t : cell.lookupAll(".label")) {
                if (t instanceof Labeled l
                        && l.isVisible()
                        && l.getText() != null
                        && !l.getText().isEmpty()) {
                    Bounds b = l.localToScene(l.getLayoutBounds());
                    if (b.getMaxX() > view.getMaxX() + 0.5 || b.getMaxY() > inCell.getMaxY() + 0.5) {
                        out.add(where + "#" + list.getId() + ": \"" + l.getText() + "\" at "
                                + Math.round(b.getMinX()) + ".." + Math.round(b.getMaxX()) + " x "
                                + Math.round(b.getMinY()) + ".." + Math.round(b.getMaxY()) + " is cut by the list's "
                                + Math.round(view.getMaxX()) + " or its cell's " + Math.round(inCell.getMaxY()));
                    }
                }
            }
        }
    }

    /** The rows of {@code table} with an item drawn whole inside its viewport (not under a scroll bar). */
    public static int wholeRows(TableView<?> table) {
        Node viewport = table.lookup(".clipped-container");
        Bounds view = viewport.localToScene(viewport.getLayoutBounds());
        int n = 0;
        for (Node r : table.lookupAll(".table-row-cell")) {
            if (r instanceof TableRow<?> row && !row.isEmpty() && row.getItem() != null && row.isVisible()) {
                Bounds b = row.localToScene(row.getBoundsInLocal());
                if (b.getMinY() >= view.getMinY() - 0.5 && b.getMaxY() <= view.getMaxY() + 0.5) {
                    n++;
                }
            }
        }
        return n;
    }

    /**
     * Every visible control that lies (partly) beyond the window's right or bottom edge, or outside the clip of
     * a pane it is in (a split pane's half): a button or list the operator cannot see or reach. What a scroll
     * pane or a table holds scrolls into sight, so their insides are not searched.
     */
    public static void outside(Node root, double width, double height, List<String> out, String where) {
        outside(root, new BoundingBox(0, 0, width, height), out, where);
    }

    private static void outside(Node node, Bounds visible, List<String> out, String where) {
        if (!node.isVisible()) {
            return;
        }
        Bounds seen = visible;
        if (node.getClip() != null) {
            Bounds clip = node.localToScene(node.getClip().getBoundsInParent());
            seen = intersect(seen, clip);
        }
        if ((node instanceof Control && !(node instanceof SplitPane)) || node instanceof TextFlow) {
            Bounds b = node.localToScene(node.getLayoutBounds());
            if (b.getWidth() > 0
                    && b.getHeight() > 0
                    && (b.getMaxX() > seen.getMaxX() + 1
                            || b.getMaxY() > seen.getMaxY() + 1
                            || b.getMinX() < seen.getMinX() - 1
                            || b.getMinY() < seen.getMinY() - 1)) {
                out.add(where + describe(node) + " at " + Math.round(b.getMinX()) + ".." + Math.round(b.getMaxX())
                        + " x " + Math.round(b.getMinY()) + ".." + Math.round(b.getMaxY()) + " outside the visible "
                        + Math.round(seen.getMinX()) + ".." + Math.round(seen.getMaxX()) + " x "
                        + Math.round(seen.getMinY()) + ".." + Math.round(seen.getMaxY()));
            }
            return; // a control's insides are its own (a table's rows scroll, a button's text is checked above)
        }
        if (node instanceof Parent p) {
            for (Node child : p.getChildrenUnmodifiable()) {
                outside(child, seen, out, where);
            }
        }
    }

    private static Bounds intersect(Bounds a, Bounds b) {
        double minX = Math.max(a.getMinX(), b.getMinX());
        double minY = Math.max(a.getMinY(), b.getMinY());
        double maxX = Math.min(a.getMaxX(), b.getMaxX());
        double maxY = Math.min(a.getMaxY(), b.getMaxY());
        return new BoundingBox(minX, minY, Math.max(0, maxX - minX), Math.max(0, maxY - minY));
    }

    private static String describe(Node n) {
        String text =
                n instanceof Labeled l && l.getText() != null && !l.getText().isEmpty()
                        ? " \"" + l.getText() + "\""
                        : "";
        return (n.getId() == null ? n.getClass().getSimpleName() : "#" + n.getId()) + text;
    }

    private static <T> T ancestor(Node n, Class<T> type) {
        for (Node p = n.getParent(); p != null; p = p.getParent()) {
            if (type.isInstance(p)) {
                return type.cast(p);
            }
        }
        return null;
    }

    /** Every visible labeled node whose drawn text is not its whole text. */
    public static void truncated(Node node, List<String> out, String where) {
        if (!node.isVisible()) {
            return;
        }
        // A timeline bar is as long as the hold lasted: its label is a hint inside it, given whole by its
        // tooltip and its sentence on click. Everything else must show its words.
        if (node instanceof Labeled l
                && l.getText() != null
                && !l.getText().isEmpty()
                && !l.getStyleClass().contains("segment")) {
            Text drawn = (Text) l.lookup(".text");
            if (drawn != null
                    && drawn.getParent() == l
                    && !l.getText().equals(drawn.getText())
                    && !l.getText().replace("\n", "").equals(drawn.getText().replace("\n", ""))) {
                out.add(where + (l.getId() == null ? l.getClass().getSimpleName() : "#" + l.getId()) + " \""
                        + l.getText() + "\" shown as \"" + drawn.getText() + "\"");
            }
        }
        if (node instanceof TickingText painted
                && painted.getText() != null
                && painted.getFont() != null
                && painted.getWidth() > 0) {
            Text measure = new Text(painted.getText());
            measure.setFont(painted.getFont());
            TableCell<?, ?> cell = ancestor(painted, TableCell.class);
            double room = cell == null
                    ? painted.getWidth()
                    : cell.getWidth() - cell.snappedLeftInset() - cell.snappedRightInset();
            if (measure.getLayoutBounds().getWidth() > room + 0.5) {
                out.add(where + "#" + painted.getId() + " painted \"" + painted.getText() + "\" needs "
                        + Math.round(measure.getLayoutBounds().getWidth()) + " px, has " + Math.round(room));
            }
        }
        if (node instanceof TableView<?> t && t.getWidth() > 0) {
            double columns = t.getVisibleLeafColumns().stream()
                    .mapToDouble(c -> c.getWidth())
                    .sum();
            boolean sideways = t.lookupAll(".scroll-bar").stream()
                    .anyMatch(b -> b instanceof ScrollBar sb
                            && sb.getOrientation() == Orientation.HORIZONTAL
                            && sb.isVisible());
            // an empty table has nothing to scroll to (and no scroll bar before its first row)
            if (columns > t.getWidth() + 1 && !sideways && !t.getItems().isEmpty()) {
                out.add(where + "#" + t.getId() + ": columns end at " + Math.round(columns) + " px in a "
                        + Math.round(t.getWidth()) + " px table with no scroll bar to reach them");
            }
        }
        if (node instanceof Parent p) {
            for (Node child : p.getChildrenUnmodifiable()) {
                truncated(child, out, where);
            }
        }
    }
}
