package dev.sovereign.console.fx;

import atlantafx.base.theme.Styles;
import java.util.function.Function;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.value.ObservableValue;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.TableColumn;
import javafx.scene.control.TableView;
import javafx.scene.layout.Priority;
import javafx.scene.layout.VBox;

/** Small building blocks shared by the views, so every page looks alike. */
public final class Ui {
    /** The badge tones, mapped to looked-up colours in console.css. */
    public enum Tone {
        GOOD("good"), WARN("warn"), BAD("bad"), INFO("info"), QUIET("quiet");

        private final String styleClass;

        Tone(String styleClass) {
            this.styleClass = styleClass;
        }

        public String styleClass() {
            return styleClass;
        }
    }

    private Ui() {
    }

    /** A page: title, one-line description, a live summary line, then the body (which grows). */
    public static VBox page(String id, String title, String description, ObservableValue<String> summary, Node body) {
        Label t = new Label(title);
        t.getStyleClass().add(Styles.TITLE_2);
        Label d = new Label(description);
        d.getStyleClass().add("page-description");
        d.setWrapText(true);
        d.setMinHeight(javafx.scene.layout.Region.USE_PREF_SIZE);
        Label s = new Label();
        s.setId(id + "-summary");
        s.getStyleClass().add("page-summary");
        if (summary != null) {
            s.textProperty().bind(summary);
        }
        VBox header = new VBox(t, d, s);
        header.getStyleClass().add("page-header");
        VBox bodyBox = new VBox(body);
        bodyBox.getStyleClass().add("page-body");
        VBox.setVgrow(body, Priority.ALWAYS);
        VBox.setVgrow(bodyBox, Priority.ALWAYS);
        VBox page = new VBox(header, bodyBox);
        page.setId(id + "-page");
        page.getStyleClass().add("page");
        return page;
    }

    public static Label badge(String text, Tone tone) {
        Label l = new Label(text);
        l.getStyleClass().addAll("badge", tone.styleClass());
        l.setMinWidth(javafx.scene.layout.Region.USE_PREF_SIZE);
        return l;
    }

    /** Sets a badge's text and tone in place (cells reuse their badge). */
    public static void retone(Label badge, String text, Tone tone) {
        badge.setText(text);
        for (Tone t : Tone.values()) {
            badge.getStyleClass().remove(t.styleClass());
        }
        badge.getStyleClass().add(tone.styleClass());
    }

    /** A column whose text is a function of the row. */
    public static <T> TableColumn<T, String> column(String title, double width, Function<T, String> text) {
        TableColumn<T, String> c = new TableColumn<>(title);
        c.setPrefWidth(width);
        c.setMinWidth(Math.min(width, 120));
        c.setCellValueFactory(f -> new SimpleStringProperty(f.getValue() == null ? "" : text.apply(f.getValue())));
        return c;
    }

    /** A column bound to an observable of the row (updates without a table refresh). */
    public static <T> TableColumn<T, String> liveColumn(String title, double width,
                                                        Function<T, ObservableValue<String>> text) {
        TableColumn<T, String> c = new TableColumn<>(title);
        c.setPrefWidth(width);
        c.setCellValueFactory(f -> text.apply(f.getValue()));
        return c;
    }

    /** A table in the house style. */
    public static <T> TableView<T> table(String id, String placeholder) {
        TableView<T> t = new TableView<>();
        t.setId(id);
        t.getStyleClass().add(Styles.STRIPED);
        t.setColumnResizePolicy(TableView.CONSTRAINED_RESIZE_POLICY_FLEX_LAST_COLUMN);
        Label p = new Label(placeholder);
        p.getStyleClass().add(Styles.TEXT_MUTED);
        p.setWrapText(true);
        p.setPadding(new Insets(24));
        t.setPlaceholder(p);
        return t;
    }
}
