package dev.sovereign.console.shell;

import atlantafx.base.theme.Styles;
import javafx.beans.Observable;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.StringBinding;
import javafx.css.PseudoClass;
import javafx.geometry.Insets;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.control.Label;
import javafx.scene.control.TextField;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.control.Tooltip;
import javafx.scene.input.KeyCode;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The main window's left side: the search box with its line of where it found things, and a button per page with
 * its count (of rows needing an operator, or of search hits while a search runs) and its Ctrl+digit shortcut.
 * Thin: every decision is the {@link ShellViewModel}'s.
 */
final class NavigationPane {
    private final ShellViewModel vm;

    NavigationPane(ShellViewModel vm) {
        this.vm = vm;
    }

    /** Builds the pane; call once. */
    Node create() {
        VBox nav = new VBox();
        nav.setId("navigation");
        nav.getStyleClass().add("console-nav");
        nav.getChildren().add(searchBox());
        Label caption = new Label("VIEWS");
        caption.getStyleClass().add("nav-caption");
        nav.getChildren().add(caption);
        ToggleGroup group = new ToggleGroup();
        for (Page p : Page.navigation()) {
            Label title = new Label(p.title());
            Region grow = new Region();
            HBox.setHgrow(grow, Priority.ALWAYS);
            Label count = new Label();
            count.getStyleClass().add("nav-count");
            count.setId("nav-count-" + p.id());
            bindCount(p, count);
            Label key = new Label("Ctrl+" + p.shortcutDigit());
            key.getStyleClass().add("nav-shortcut");
            // true totals can have four digits: nothing in the row may be cut, the navigation widens instead
            title.setMinWidth(Region.USE_PREF_SIZE);
            count.setMinWidth(Region.USE_PREF_SIZE);
            key.setMinWidth(Region.USE_PREF_SIZE);
            HBox graphic = new HBox(8, title, grow, count, key);
            graphic.setAlignment(Pos.CENTER_LEFT);
            graphic.setMinWidth(170);
            ToggleButton b = new ToggleButton();
            b.setGraphic(graphic);
            b.setId("nav-" + p.id());
            b.getStyleClass().addAll("nav-button", Styles.FLAT);
            b.setToggleGroup(group);
            b.setMaxWidth(Double.MAX_VALUE);
            b.setTooltip(new Tooltip(p.description()));
            b.setSelected(vm.pageProperty().get() == p);
            b.setOnAction(e -> {
                vm.pageProperty().set(p);
                b.setSelected(true);
            });
            vm.pageProperty().addListener((obs, o, now) -> b.setSelected(now == p));
            b.disableProperty().bind(vm.attachedLocationProperty().isNull());
            nav.getChildren().add(b);
        }
        return nav;
    }

    /**
     * The search: an actor, process, assignment, message or token, on every page at once. While it holds
     * something, each page shows only what matches, the navigation counts the matches per page, and a
     * line says where they are; Enter goes to the first page with a match, Escape clears it.
     */
    private Node searchBox() {
        TextField field = new TextField();
        field.setId("search-field");
        field.setPromptText("Find actor, process, id, token");
        field.setTooltip(new Tooltip("Shows on every page only what matches: an actor, a"
                + " process (label or identity), an assignment, attempt or message id, or a token (#5). Ctrl+F;"
                + " Enter goes to the first page with a match; Escape clears."));
        field.textProperty().bindBidirectional(vm.search().queryProperty());
        field.disableProperty().bind(vm.attachedLocationProperty().isNull());
        field.setOnAction(e -> vm.search().showFirstSearchHit());
        field.setOnKeyPressed(e -> {
            if (e.getCode() == KeyCode.ESCAPE) {
                field.clear();
                e.consume();
            }
        });
        Label found = new Label();
        found.setId("search-summary");
        found.setWrapText(true);
        found.getStyleClass().addAll(Styles.TEXT_SMALL, Styles.TEXT_MUTED);
        found.textProperty().bind(vm.search().searchSummaryProperty());
        found.visibleProperty().bind(found.textProperty().isNotEmpty());
        found.managedProperty().bind(found.visibleProperty());
        found.setMaxWidth(190);
        VBox box = new VBox(4, field, found);
        box.setId("search-box");
        box.setPadding(new Insets(0, 0, 8, 0));
        return box;
    }

    private void bindCount(Page p, Label count) {
        ShellSearch search = vm.search();
        if (search.searchHits(p) >= 0) {
            StringBinding usual = usualCount(p);
            StringBinding text = Bindings.createStringBinding(
                    () -> !search.searchSummaryProperty().get().isEmpty()
                            ? Integer.toString(search.searchHits(p))
                            : usual == null ? "" : usual.get(),
                    usual == null
                            ? new Observable[] {search.searchSummaryProperty()}
                            : new Observable[] {search.searchSummaryProperty(), usual});
            count.textProperty().bind(text);
            // during a search the count is of hits, not an alarm: styled quietly (issue 31)
            PseudoClass searching = PseudoClass.getPseudoClass("search");
            count.pseudoClassStateChanged(
                    searching, !search.searchSummaryProperty().get().isEmpty());
            search.searchSummaryProperty()
                    .addListener((obs, old, q) -> count.pseudoClassStateChanged(searching, !q.isEmpty()));
            count.visibleProperty().bind(count.textProperty().isNotEmpty());
            count.managedProperty().bind(count.visibleProperty());
            return;
        }
        count.setVisible(false);
        count.setManaged(false);
    }

    private StringBinding usualCount(Page p) {
        return switch (p) {
            case REJECTIONS ->
                Bindings.createStringBinding(
                        () -> vm.rejections().totalProperty().get() == 0
                                ? ""
                                : Long.toString(vm.rejections().totalProperty().get()),
                        vm.rejections().totalProperty());
            case RUNS ->
                Bindings.createStringBinding(
                        () -> {
                            long n = vm.runs().needsOperatorProperty().get(); // counted by the database, not the page
                            return n == 0 ? "" : Long.toString(n);
                        },
                        vm.runs().needsOperatorProperty());
            default -> null;
        };
    }
}
