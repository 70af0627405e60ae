package dev.sovereign.console.shell;

import dev.sovereign.engine.base.LedgerLocation;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.collections.ListChangeListener;
import javafx.scene.control.CheckMenuItem;
import javafx.scene.control.Menu;
import javafx.scene.control.MenuBar;
import javafx.scene.control.MenuItem;
import javafx.scene.control.SeparatorMenuItem;
import javafx.scene.input.KeyCode;
import javafx.scene.input.KeyCodeCombination;
import javafx.scene.input.KeyCombination;
import javafx.stage.Window;

/**
 * The main window's menu bar and every keyboard shortcut it carries: File (Ctrl+O opens, Ctrl+Shift+O opens a
 * server, Ctrl+D starts a demo, Ctrl+L opens the lab sandbox, Ctrl+E exports, Ctrl+W closes, Ctrl+Q quits), View
 * (Ctrl+digit per page, Alt+Left / Alt+Right for Back and Forward, Ctrl+F finds, F5 refreshes, Ctrl+T switches the
 * theme, Ctrl+Shift+U shows times in UTC), Actions (Ctrl+R retries and Ctrl+K acknowledges the selected run,
 * Ctrl+Shift+S stops the selected process after asking, F6 runs a supervisor tick, Shift+F6 toggles this console's
 * supervisor) and Help (Ctrl+/ the shortcut sheet, read from these menus; the docs; F1 the About box). Thin: every
 * decision is the {@link ShellViewModel}'s; the dialogs are the {@link MainWindow}'s.
 */
final class ShellMenuBar {
    private final ShellViewModel vm;
    private final Runnable quit;
    private final Consumer<String> browser;
    private final Supplier<Window> window;
    private final Runnable openDatabase;
    private final Runnable openServer;
    private final Runnable exportJournal;
    private final Runnable focusSearch;
    private MenuBar menuBar;

    /**
     * @param browser       opens a document's address
     * @param window        the window the dialogs belong to (null before it shows)
     * @param openDatabase  File → Open database…: asks for a file and attaches it
     * @param openServer    File → Open server…: asks for a URL and attaches it
     * @param exportJournal File → Export journal as CSV…: asks where and exports
     * @param focusSearch   View → Find…: puts the keyboard into the search box
     */
    ShellMenuBar(
            ShellViewModel vm,
            Runnable quit,
            Consumer<String> browser,
            Supplier<Window> window,
            Runnable openDatabase,
            Runnable openServer,
            Runnable exportJournal,
            Runnable focusSearch) {
        this.vm = vm;
        this.quit = quit;
        this.browser = browser;
        this.window = window;
        this.openDatabase = openDatabase;
        this.openServer = openServer;
        this.exportJournal = exportJournal;
        this.focusSearch = focusSearch;
    }

    /** Builds the menu bar; call once. */
    MenuBar create() {
        MenuItem open = item(
                "Open database\u2026",
                "menu-open",
                new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN),
                openDatabase);
        Menu recent = new Menu("Open recent");
        recent.setId("menu-recent");
        Runnable fillRecent = () -> {
            recent.getItems().clear();
            for (LedgerLocation p : vm.attachment().recentFiles()) {
                MenuItem i = new MenuItem(p.toString());
                i.setOnAction(e -> vm.attach(p));
                recent.getItems().add(i);
            }
            recent.setDisable(recent.getItems().isEmpty());
        };
        vm.attachment().recentFiles().addListener((ListChangeListener<LedgerLocation>) c -> fillRecent.run());
        fillRecent.run();
        MenuItem sandbox = item(
                "Open lab sandbox",
                "menu-lab-sandbox",
                new KeyCodeCombination(KeyCode.L, KeyCombination.SHORTCUT_DOWN),
                () -> {
                    vm.lab().openSandbox();
                    vm.pageProperty().set(Page.LAB);
                });
        MenuItem demo = item(
                "Start a demo",
                "menu-demo",
                new KeyCodeCombination(KeyCode.D, KeyCombination.SHORTCUT_DOWN),
                vm::startDemo);
        demo.disableProperty().bind(vm.demoSession().startingProperty());
        MenuItem export = item(
                "Export journal as CSV\u2026",
                "menu-export",
                new KeyCodeCombination(KeyCode.E, KeyCombination.SHORTCUT_DOWN),
                exportJournal);
        export.disableProperty()
                .bind(vm.attachedLocationProperty()
                        .isNull()
                        .or(vm.journalExport().exportingProperty()));
        MenuItem close = item(
                "Close database",
                "menu-close",
                new KeyCodeCombination(KeyCode.W, KeyCombination.SHORTCUT_DOWN),
                vm::detach);
        close.disableProperty().bind(vm.attachedLocationProperty().isNull());
        MenuItem exit =
                item("Quit", "menu-quit", new KeyCodeCombination(KeyCode.Q, KeyCombination.SHORTCUT_DOWN), quit);
        MenuItem openServer = item(
                "Open server\u2026",
                "menu-open-server",
                new KeyCodeCombination(KeyCode.O, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN),
                this.openServer);
        Menu file = new Menu(
                "File",
                null,
                open,
                openServer,
                recent,
                demo,
                sandbox,
                new SeparatorMenuItem(),
                export,
                new SeparatorMenuItem(),
                close,
                exit);

        Menu view = new Menu("View");
        for (Page p : Page.navigation()) {
            MenuItem i = item(
                    p.title(),
                    "menu-page-" + p.id(),
                    new KeyCodeCombination(KeyCode.valueOf("DIGIT" + p.shortcutDigit()), KeyCombination.SHORTCUT_DOWN),
                    () -> vm.pageProperty().set(p));
            view.getItems().add(i);
        }
        MenuItem refresh =
                item("Refresh now", "menu-refresh", new KeyCodeCombination(KeyCode.F5), vm.attachment()::refresh);
        MenuItem theme = item(
                "Switch light / dark",
                "menu-theme",
                new KeyCodeCombination(KeyCode.T, KeyCombination.SHORTCUT_DOWN),
                vm::toggleTheme);
        MenuItem find = item(
                "Find\u2026 (actor, process, id, token)",
                "menu-find",
                new KeyCodeCombination(KeyCode.F, KeyCombination.SHORTCUT_DOWN),
                focusSearch);
        CheckMenuItem utc = new CheckMenuItem("Show times in UTC");
        utc.setId("menu-utc");
        utc.setAccelerator(new KeyCodeCombination(KeyCode.U, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN));
        utc.selectedProperty().bindBidirectional(vm.statusLine().utcTimesProperty());
        CheckMenuItem alerts = new CheckMenuItem("Alerts: worker-lost runs, refusal spikes");
        alerts.setId("menu-alerts");
        alerts.selectedProperty().bindBidirectional(vm.banners().alerts().enabledProperty());
        MenuItem back = item(
                "Back",
                "menu-back",
                new KeyCodeCombination(KeyCode.LEFT, KeyCombination.ALT_DOWN),
                vm.navigation()::back);
        back.disableProperty().bind(vm.navigation().canBackProperty().not());
        MenuItem forward = item(
                "Forward",
                "menu-forward",
                new KeyCodeCombination(KeyCode.RIGHT, KeyCombination.ALT_DOWN),
                vm.navigation()::forward);
        forward.disableProperty().bind(vm.navigation().canForwardProperty().not());
        view.getItems()
                .addAll(
                        new SeparatorMenuItem(),
                        back,
                        forward,
                        new SeparatorMenuItem(),
                        find,
                        refresh,
                        theme,
                        utc,
                        alerts);
        MenuBar bar = new MenuBar(file, view, actionsMenu(), helpMenu());
        bar.setId("menu-bar");
        menuBar = bar;
        return bar;
    }

    /** The shortcut sheet (read from the menus), the docs, the About box. */
    private Menu helpMenu() {
        MenuItem shortcuts = item(
                "Keyboard shortcuts",
                "menu-shortcuts",
                new KeyCodeCombination(KeyCode.SLASH, KeyCombination.SHORTCUT_DOWN),
                () -> ShortcutSheet.show(window.get(), menuBar));
        Menu help = new Menu("Help", null, shortcuts, new SeparatorMenuItem());
        help.setId("menu-help");
        Optional<HelpDocs> docs = HelpDocs.find();
        for (String[] doc : HelpDocs.DOCUMENTS) {
            MenuItem i = new MenuItem(doc[0] + (docs.isPresent() ? "" : " (docs not installed)"));
            i.setId("menu-doc-" + doc[1].replace(".md", ""));
            i.setDisable(docs.isEmpty());
            docs.ifPresent(d -> i.setOnAction(e -> browser.accept(d.address(doc[1]))));
            help.getItems().add(i);
        }
        MenuItem about = item(
                "About Sovereign", "menu-about", new KeyCodeCombination(KeyCode.F1), () -> AboutBox.show(window.get()));
        help.getItems().addAll(new SeparatorMenuItem(), about);
        return help;
    }

    /** Operator actions, with shortcuts that work from every page (they act on the selected run). */
    private Menu actionsMenu() {
        MenuItem retry = item(
                "Retry selected run",
                "menu-retry",
                new KeyCodeCombination(KeyCode.R, KeyCombination.SHORTCUT_DOWN),
                vm.runs()::retrySelected);
        retry.disableProperty().bind(vm.runs().canRetryProperty().not());
        MenuItem acknowledge = item(
                "Acknowledge selected run",
                "menu-acknowledge",
                new KeyCodeCombination(KeyCode.K, KeyCombination.SHORTCUT_DOWN),
                vm.runs()::acknowledgeSelected);
        acknowledge.disableProperty().bind(vm.runs().canAcknowledgeProperty().not());
        MenuItem tick = item(
                "Run a supervisor tick now", "menu-tick", new KeyCodeCombination(KeyCode.F6), vm.supervisor()::tickNow);
        tick.disableProperty().bind(vm.supervisor().canActProperty().not());
        MenuItem auto = item(
                "Start / stop this console's supervisor",
                "menu-auto-tick",
                new KeyCodeCombination(KeyCode.F6, KeyCombination.SHIFT_DOWN),
                vm.supervisor()::toggleAutoTick);
        auto.disableProperty().bind(vm.supervisor().canActProperty().not());
        MenuItem stopProcess = item(
                "Stop selected process\u2026",
                "menu-stop-process",
                new KeyCodeCombination(KeyCode.S, KeyCombination.SHORTCUT_DOWN, KeyCombination.SHIFT_DOWN),
                vm.stopping()::stopSelectedProcess);
        stopProcess
                .disableProperty()
                .bind(vm.stopping().canStopSelectedProcessProperty().not());
        Menu m = new Menu(
                "Actions",
                null,
                retry,
                acknowledge,
                new SeparatorMenuItem(),
                stopProcess,
                new SeparatorMenuItem(),
                tick,
                auto);
        m.setId("menu-actions");
        return m;
    }

    private static MenuItem item(String text, String id, KeyCombination accelerator, Runnable action) {
        MenuItem i = new MenuItem(text);
        i.setId(id);
        i.setAccelerator(accelerator);
        i.setOnAction(e -> action.run());
        return i;
    }
}
