package dev.sovereign.console.shell;

import atlantafx.base.controls.Message;
import atlantafx.base.theme.Styles;
import dev.sovereign.console.feature.lab.LabView;
import dev.sovereign.console.feature.leases.LeasesView;
import dev.sovereign.console.feature.mailbox.MailboxView;
import dev.sovereign.console.feature.processes.ProcessesView;
import dev.sovereign.console.feature.rejections.RejectionsView;
import dev.sovereign.console.feature.runs.RunsView;
import dev.sovereign.console.feature.supervisor.SupervisorView;
import dev.sovereign.console.feature.timeline.TimelineView;
import java.io.File;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.EnumMap;
import java.util.Map;
import javafx.beans.binding.Bindings;
import javafx.geometry.Pos;
import javafx.scene.Node;
import javafx.scene.Parent;
import javafx.scene.Scene;
import javafx.scene.control.Label;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.ProgressIndicator;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.control.ToggleButton;
import javafx.scene.control.ToggleGroup;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.scene.layout.BorderPane;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.StackPane;
import javafx.scene.layout.VBox;
import javafx.stage.FileChooser;
import javafx.stage.Window;

/**
 * The main window: menu bar, demo strip, banner, navigation, the current page and the status bar.
 * Every page has a Ctrl+digit shortcut; F5 refreshes, Ctrl+T switches the theme, Ctrl+O opens,
 * Ctrl+E exports, Ctrl+D starts a demo, F1 shows the About box (version, commit, schema); the Actions menu retries (Ctrl+R) or acknowledges (Ctrl+K) the
 * selected run, stops the selected process after asking (Ctrl+Shift+S), and runs a supervisor tick (F6) or toggles this console's supervisor (Shift+F6).
 * Thin: every decision is the {@link ShellViewModel}'s.
 */
public final class MainWindow {
    private final ShellViewModel vm;
    private final Runnable quit;
    private final Map<Page, Node> pages = new EnumMap<>(Page.class);
    private final StackPane content = new StackPane();
    private Node welcome;
    private Node connecting;

    private final java.util.function.Consumer<String> browser;
    private MenuBar menuBar;

    public MainWindow(ShellViewModel vm, Runnable quit) {
        this(vm, quit, address -> { });
    }

    /** {@code browser} opens a document's address (the app's {@code HostServices.showDocument}). */
    public MainWindow(ShellViewModel vm, Runnable quit, java.util.function.Consumer<String> browser) {
        this.vm = vm;
        this.quit = quit;
        this.browser = browser;
    }

    /** Builds the whole window's content. */
    public Parent create() {
        BorderPane root = new BorderPane();
        root.setId("main-window");
        root.setTop(new VBox(menuBar(), demoStrip(), banner()));
        root.setLeft(navigation());
        content.setId("content");
        root.setCenter(content);
        root.setBottom(new StatusBar(vm).create());
        welcome = new WelcomeView(vm, this::openWithDialog, vm::attach, vm::startDemo).create();
        connecting = connectingPane();
        vm.pageProperty().addListener((obs, o, p) -> showContent());
        vm.attachedLocationProperty().addListener((obs, o, p) -> showContent());
        vm.attachingLocationProperty().addListener((obs, o, p) -> showContent());
        vm.demoStartingProperty().addListener((obs, o, p) -> showContent());
        showContent();
        return root;
    }

    /** Adds the console stylesheet and applies (and follows) the theme. Call once the scene exists. */
    public void install(Scene scene) {
        // JavaFX gives the first focus to the first field it finds, the search box; the page gets it instead
        // (see focusInto). Once: a later click into the search box stays there.
        scene.focusOwnerProperty().addListener(new javafx.beans.value.ChangeListener<Node>() {
            @Override
            public void changed(javafx.beans.value.ObservableValue<? extends Node> obs, Node was, Node now) {
                if (was == null && now != null) {
                    scene.focusOwnerProperty().removeListener(this);
                    if (!content.getChildren().isEmpty()) {
                        javafx.application.Platform.runLater(() -> focusInto(content.getChildren().get(0)));
                    }
                }
            }
        });
        scene.getStylesheets().add(ThemeManager.consoleStylesheet());
        ThemeManager.apply(vm.themeProperty().get());
        vm.themeProperty().addListener((obs, o, t) -> ThemeManager.apply(t));
    }

    private void showContent() {
        Node show;
        if (vm.attachedLocationProperty().get() != null) {
            show = pages.computeIfAbsent(vm.pageProperty().get(), this::createPage);
        } else if (vm.attachingLocationProperty().get() != null || vm.demoStartingProperty().get()) {
            show = connecting;
        } else {
            show = welcome;
        }
        if (content.getChildren().size() != 1 || content.getChildren().get(0) != show) {
            content.getChildren().setAll(show);
            focusInto(show);
        }
    }

    /**
     * Gives the keyboard to the page just shown (its first table, else the page) unless the operator is typing a
     * search. Left where JavaFX puts it on start, the focus sits in the empty search box, whose blinking caret
     * runs the scene's pulse — CSS, layout and a render — 60 times a second while nothing changes (issue 17,
     * item 15: that was most of an idle console's CPU). Ctrl+F still goes to the search box.
     */
    private void focusInto(Node page) {
        Scene scene = content.getScene();
        if (scene == null) {
            return;
        }
        Node owner = scene.getFocusOwner();
        boolean typingASearch = owner instanceof javafx.scene.control.TextField f && "search-field".equals(f.getId())
                && !f.getText().isEmpty();
        boolean stillShown = owner != null && owner.getScene() == scene; // not on the page just taken away
        if (stillShown && owner != scene.lookup("#search-field") || typingASearch) {
            return; // a button, a table, a field of a dialog row: where the operator put it
        }
        page.applyCss(); // a page shown for the first time has no skins yet: a split pane's table is not a child before
        Node table = page.lookup(".table-view");
        (table != null ? table : page).requestFocus();
    }

    private Node createPage(Page p) {
        return switch (p) {
            case LEASES -> new LeasesView(vm.leases(), vm.formats(), vm).create();
            case TIMELINE -> new TimelineView(vm.timeline(), vm).create();
            case REJECTIONS -> new RejectionsView(vm.rejections(), vm).create();
            case RUNS -> new RunsView(vm.runs(), vm.formats(), vm).create();
            case MAILBOX -> new MailboxView(vm.mailbox(), vm.formats(), vm).create();
            case PROCESSES -> new ProcessesView(vm.processes(), vm.formats(), vm, vm.stopProcess()).create();
            case SUPERVISOR -> new SupervisorView(vm.supervisor(), vm).create();
            case LAB -> new LabView(vm.lab()).create();
            case TRENDS -> new dev.sovereign.console.feature.trends.TrendsView(vm.trends(), vm.formats()).create();
            case ACTOR -> new dev.sovereign.console.feature.actor.ActorPageView(vm.actorPage(), vm,
                    backForward("actor")).create();
            case PROCESS -> new dev.sovereign.console.feature.process.ProcessPageView(vm.processPage(), vm,
                    backForward("process")).create();
        };
    }

    private Node backForward(String id) {
        return dev.sovereign.console.fx.Ui.backForward(id, vm::back, vm::forward, vm.canBackProperty(),
                vm.canForwardProperty());
    }

    private Node connectingPane() {
        ProgressIndicator spin = new ProgressIndicator();
        spin.setMaxSize(36, 36);
        Label l = new Label();
        l.textProperty().bind(Bindings.createStringBinding(() -> vm.attachingLocationProperty().get() != null
                ? "Opening " + vm.attachingLocationProperty().get() + "\u2026"
                : vm.demoStartingProperty().get() ? "Starting the demo: a fresh database and five worker processes\u2026"
                : "", vm.attachingLocationProperty(), vm.demoStartingProperty()));
        VBox box = new VBox(12, spin, l);
        box.setAlignment(Pos.CENTER);
        box.setId("connecting");
        return box;
    }

    private MenuBar menuBar() {
        MenuItem open = item("Open database\u2026", "menu-open", new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN),
                this::openWithDialog);
        Menu recent = new Menu("Open recent");
        recent.setId("menu-recent");
        Runnable fillRecent = () -> {
            recent.getItems().clear();
            for (LedgerLocation p : vm.recentFiles()) {
                MenuItem i = new MenuItem(p.toString());
                i.setOnAction(e -> vm.attach(p));
                recent.getItems().add(i);
            }
            recent.setDisable(recent.getItems().isEmpty());
        };
        vm.recentFiles().addListener((javafx.collections.ListChangeListener<LedgerLocation>) c -> fillRecent.run());
        fillRecent.run();
        MenuItem sandbox = item("Open lab sandbox", "menu-lab-sandbox",
                new KeyCodeCombination(KeyCode.L, KeyCombination.SHORTCUT_DOWN), () -> {
                    vm.lab().openSandbox();
                    vm.pageProperty().set(Page.LAB);
                });
        MenuItem demo = item("Start a demo", "menu-demo", new KeyCodeCombination(KeyCode.D, KeyCombination.SHORTCUT_DOWN),
                vm::startDemo);
        demo.disableProperty().bind(vm.demoStartingProperty());
        MenuItem export = item("Export journal as CSV\u2026", "menu-export",
                new KeyCodeCombination(KeyCode.E, KeyCombination.SHORTCUT_DOWN), this::exportWithDialog);
        export.disableProperty().bind(vm.attachedLocationProperty().isNull().or(vm.exportingProperty()));
        MenuItem close = item("Close database", "menu-close", new KeyCodeCombination(KeyCode.W, KeyCombination.SHORTCUT_DOWN),
                vm::detach);
        close.disableProperty().bind(vm.attachedLocationProperty().isNull());
        MenuItem exit = item("Quit", "menu-quit", new KeyCodeCombination(KeyCode.Q, KeyCombination.SHORTCUT_DOWN), quit);
        MenuItem openServer = item("Open server\u2026", "menu-open-server",
                new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN),
                this::openServerWithDialog);
        Menu file = new Menu("File", null, open, openServer, recent, demo, sandbox, new SeparatorMenuItem(), export,
                new SeparatorMenuItem(), close, exit);

        Menu view = new Menu("View");
        for (Page p : Page.navigation()) {
            MenuItem i = item(p.title(), "menu-page-" + p.id(), new KeyCodeCombination(
                    KeyCode.valueOf("DIGIT" + p.shortcutDigit()), KeyCombination.SHORTCUT_DOWN), () -> vm.pageProperty().set(p));
            view.getItems().add(i);
        }
        MenuItem refresh = item("Refresh now", "menu-refresh", new KeyCodeCombination(KeyCode.F5), vm::refresh);
        MenuItem theme = item("Switch light / dark", "menu-theme", new KeyCodeCombination(KeyCode.T, KeyCombination.SHORTCUT_DOWN),
                vm::toggleTheme);
        MenuItem find = item("Find\u2026 (actor, process, id, token)", "menu-find",
                new KeyCodeCombination(KeyCode.F, KeyCombination.SHORTCUT_DOWN), this::focusSearch);
        javafx.scene.control.CheckMenuItem utc = new javafx.scene.control.CheckMenuItem("Show times in UTC");
        utc.setId("menu-utc");
        utc.setAccelerator(new KeyCodeCombination(KeyCode.U, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN));
        utc.selectedProperty().bindBidirectional(vm.utcTimesProperty());
        javafx.scene.control.CheckMenuItem alerts = new javafx.scene.control.CheckMenuItem(
                "Alerts: worker-lost runs, refusal spikes");
        alerts.setId("menu-alerts");
        alerts.selectedProperty().bindBidirectional(vm.alerts().enabledProperty());
        MenuItem back = item("Back", "menu-back", new KeyCodeCombination(KeyCode.LEFT, KeyCombination.ALT_DOWN), vm::back);
        back.disableProperty().bind(vm.canBackProperty().not());
        MenuItem forward = item("Forward", "menu-forward", new KeyCodeCombination(KeyCode.RIGHT, KeyCombination.ALT_DOWN),
                vm::forward);
        forward.disableProperty().bind(vm.canForwardProperty().not());
        view.getItems().addAll(new SeparatorMenuItem(), back, forward, new SeparatorMenuItem(), find, refresh, theme, utc,
                alerts);
        MenuBar bar = new MenuBar(file, view, actionsMenu(), helpMenu());
        bar.setId("menu-bar");
        menuBar = bar;
        return bar;
    }

    /** The shortcut sheet (read from the menus), the docs, the About box. */
    private Menu helpMenu() {
        MenuItem shortcuts = item("Keyboard shortcuts", "menu-shortcuts",
                new KeyCodeCombination(KeyCode.SLASH, KeyCombination.SHORTCUT_DOWN), () -> ShortcutSheet.show(window(), menuBar));
        Menu help = new Menu("Help", null, shortcuts, new SeparatorMenuItem());
        help.setId("menu-help");
        java.util.Optional<HelpDocs> docs = HelpDocs.find();
        for (String[] doc : HelpDocs.DOCUMENTS) {
            MenuItem i = new MenuItem(doc[0] + (docs.isPresent() ? "" : " (docs not installed)"));
            i.setId("menu-doc-" + doc[1].replace(".md", ""));
            i.setDisable(docs.isEmpty());
            docs.ifPresent(d -> i.setOnAction(e -> browser.accept(d.address(doc[1]))));
            help.getItems().add(i);
        }
        MenuItem about = item("About Sovereign", "menu-about", new KeyCodeCombination(KeyCode.F1),
                () -> AboutBox.show(window()));
        help.getItems().addAll(new SeparatorMenuItem(), about);
        return help;
    }

    private void focusSearch() {
        if (content.getScene() != null && content.getScene().lookup("#search-field") instanceof javafx.scene.control.TextField f) {
            f.requestFocus();
            f.selectAll();
        }
    }

    /** Operator actions, with shortcuts that work from every page (they act on the selected run). */
    private Menu actionsMenu() {
        MenuItem retry = item("Retry selected run", "menu-retry",
                new KeyCodeCombination(KeyCode.R, KeyCombination.SHORTCUT_DOWN), vm.runs()::retrySelected);
        retry.disableProperty().bind(vm.runs().canRetryProperty().not());
        MenuItem acknowledge = item("Acknowledge selected run", "menu-acknowledge",
                new KeyCodeCombination(KeyCode.K, KeyCombination.SHORTCUT_DOWN), vm.runs()::acknowledgeSelected);
        acknowledge.disableProperty().bind(vm.runs().canAcknowledgeProperty().not());
        MenuItem tick = item("Run a supervisor tick now", "menu-tick", new KeyCodeCombination(KeyCode.F6),
                vm.supervisor()::tickNow);
        tick.disableProperty().bind(vm.supervisor().canActProperty().not());
        MenuItem auto = item("Start / stop this console's supervisor", "menu-auto-tick",
                new KeyCodeCombination(KeyCode.F6, KeyCombination.SHIFT_DOWN), vm.supervisor()::toggleAutoTick);
        auto.disableProperty().bind(vm.supervisor().canActProperty().not());
        MenuItem stopProcess = item("Stop selected process\u2026", "menu-stop-process",
                new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN),
                vm::stopSelectedProcess);
        stopProcess.disableProperty().bind(vm.canStopSelectedProcessProperty().not());
        Menu m = new Menu("Actions", null, retry, acknowledge, new SeparatorMenuItem(), stopProcess,
                new SeparatorMenuItem(), tick, auto);
        m.setId("menu-actions");
        return m;
    }

    /** Shown while a demo runs: what it just did, and how to end it. */
    private Node demoStrip() {
        Label tag = new Label("DEMO");
        tag.getStyleClass().add("demo-tag");
        Label said = new Label();
        said.setId("demo-narration");
        said.textProperty().bind(vm.demoNarrationProperty());
        said.setMaxWidth(Double.MAX_VALUE);
        HBox.setHgrow(said, Priority.ALWAYS);
        javafx.scene.control.Button stop = new javafx.scene.control.Button("Stop demo");
        stop.setId("demo-stop");
        stop.getStyleClass().addAll(Styles.SMALL, Styles.FLAT);
        stop.setOnAction(e -> vm.detach());
        HBox strip = new HBox(10, tag, said, stop);
        strip.setId("demo-strip");
        strip.getStyleClass().add("demo-strip");
        strip.visibleProperty().bind(vm.demoRunningProperty());
        strip.managedProperty().bind(strip.visibleProperty());
        return strip;
    }

    private static MenuItem item(String text, String id, KeyCombination accelerator, Runnable action) {
        MenuItem i = new MenuItem(text);
        i.setId(id);
        i.setAccelerator(accelerator);
        i.setOnAction(e -> action.run());
        return i;
    }

    /**
     * A fresh {@link Message} per banner: AtlantaFX 2.0.1's skin copies the description into the title
     * when one is reused (mkpaz/atlantafx#74), which showed the previous message as the headline.
     */
    private Node banner() {
        StackPane holder = new StackPane();
        holder.setId("banner-holder");
        holder.setPadding(new javafx.geometry.Insets(8, 12, 0, 12));
        Runnable show = () -> {
            Banner b = vm.bannerProperty().get();
            holder.setVisible(b != null);
            holder.setManaged(b != null);
            if (b == null) {
                holder.getChildren().clear();
                return;
            }
            Message message = new Message(b.title(), b.text());
            message.setId("banner");
            message.setOnClose(e -> vm.dismissBanner());
            message.getStyleClass().add(switch (b.severity()) {
                case INFO -> Styles.ACCENT;
                case SUCCESS -> Styles.SUCCESS;
                case WARNING -> Styles.WARNING;
                case DANGER -> Styles.DANGER;
            });
            holder.getChildren().setAll(message);
        };
        vm.bannerProperty().addListener((obs, o, b) -> show.run());
        show.run();
        return holder;
    }

    private Node navigation() {
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
            b.setTooltip(new javafx.scene.control.Tooltip(p.description()));
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
        javafx.scene.control.TextField field = new javafx.scene.control.TextField();
        field.setId("search-field");
        field.setPromptText("Find actor, process, id, token");
        field.setTooltip(new javafx.scene.control.Tooltip("Shows on every page only what matches: an actor, a"
                + " process (label or identity), an assignment, attempt or message id, or a token (#5). Ctrl+F;"
                + " Enter goes to the first page with a match; Escape clears."));
        field.textProperty().bindBidirectional(vm.searchQueryProperty());
        field.disableProperty().bind(vm.attachedLocationProperty().isNull());
        field.setOnAction(e -> vm.showFirstSearchHit());
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
        found.textProperty().bind(vm.searchSummaryProperty());
        found.visibleProperty().bind(found.textProperty().isNotEmpty());
        found.managedProperty().bind(found.visibleProperty());
        found.setMaxWidth(190);
        VBox box = new VBox(4, field, found);
        box.setId("search-box");
        box.setPadding(new javafx.geometry.Insets(0, 0, 8, 0));
        return box;
    }

    private void bindCount(Page p, Label count) {
        if (vm.searchHits(p) >= 0) {
            javafx.beans.binding.StringBinding usual = usualCount(p);
            javafx.beans.binding.StringBinding text = Bindings.createStringBinding(() ->
                    !vm.searchSummaryProperty().get().isEmpty() ? Integer.toString(vm.searchHits(p))
                            : usual == null ? "" : usual.get(),
                    usual == null ? new javafx.beans.Observable[] {vm.searchSummaryProperty()}
                            : new javafx.beans.Observable[] {vm.searchSummaryProperty(), usual});
            count.textProperty().bind(text);
            // during a search the count is of hits, not an alarm: styled quietly (issue 31)
            javafx.css.PseudoClass searching = javafx.css.PseudoClass.getPseudoClass("search");
            count.pseudoClassStateChanged(searching, !vm.searchSummaryProperty().get().isEmpty());
            vm.searchSummaryProperty().addListener((obs, old, q) -> count.pseudoClassStateChanged(searching, !q.isEmpty()));
            count.visibleProperty().bind(count.textProperty().isNotEmpty());
            count.managedProperty().bind(count.visibleProperty());
            return;
        }
        count.setVisible(false);
        count.setManaged(false);
    }

    private javafx.beans.binding.StringBinding usualCount(Page p) {
        return switch (p) {
            case REJECTIONS -> Bindings.createStringBinding(() -> vm.rejections().totalProperty().get() == 0 ? ""
                    : Long.toString(vm.rejections().totalProperty().get()), vm.rejections().totalProperty());
            case RUNS -> Bindings.createStringBinding(() -> {
                long n = vm.runs().needsOperatorProperty().get(); // counted by the database, not the page
                return n == 0 ? "" : Long.toString(n);
            }, vm.runs().needsOperatorProperty());
            default -> null;
        };
    }

    private Window window() {
        return content.getScene() == null ? null : content.getScene().getWindow();
    }

    private void openWithDialog() {
        FileChooser chooser = new FileChooser();
        chooser.setTitle("Open a Sovereign database");
        chooser.getExtensionFilters().addAll(new FileChooser.ExtensionFilter("Sovereign databases (*.db)", "*.db"),
                new FileChooser.ExtensionFilter("All files", "*"));
        Path dir = vm.lastDirectory();
        if (dir != null && dir.toFile().isDirectory()) {
            chooser.setInitialDirectory(dir.toFile());
        }
        File f = chooser.showOpenDialog(window());
        if (f != null) {
            vm.attach(f.toPath());
        }
    }

    /**
     * File → Open server: a PostgreSQL URL typed or pasted (decision 0423). The field is cleared once used; the URL
     * is shown and remembered only without its secrets.
     */
    private void openServerWithDialog() {
        ServerDialog.ask(window()).ifPresent(url -> {
            try {
                vm.attach(LedgerLocation.parse(url));
            } catch (IllegalArgumentException e) {
                vm.showProblem("Not a server address", e.getMessage());
            }
        });
    }

    private void exportWithDialog() {
        LedgerLocation location = vm.attachedLocationProperty().get();
        if (location == null) {
            return;
        }
        // a server's journal is exported to the last folder used, named after the database
        Path db = location.file().orElse(java.nio.file.Path.of(vm.lastDirectory() == null
                ? System.getProperty("user.home") : vm.lastDirectory().toString(),
                location.withoutSecrets().text().replaceFirst("^.*/", "").replaceFirst("[?].*$", "") + ".db"));
        FileChooser chooser = new FileChooser();
        chooser.setTitle("Export the fence journal as CSV");
        chooser.getExtensionFilters().add(new FileChooser.ExtensionFilter("CSV files (*.csv)", "*.csv"));
        String name = db.getFileName().toString().replaceFirst("\\.db$", "") + "-journal.csv";
        chooser.setInitialFileName(name);
        if (db.getParent() != null) {
            chooser.setInitialDirectory(db.getParent().toFile());
        }
        File f = chooser.showSaveDialog(window());
        if (f != null) {
            vm.exportJournal(f.toPath());
        }
    }
}
