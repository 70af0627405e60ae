package dev.sovereign.console;

import dev.sovereign.console.fx.FxTicker;
import dev.sovereign.console.fx.FxUiExecutor;
import dev.sovereign.console.ledger.LedgerPoller;
import dev.sovereign.console.shell.ConsoleSettings;
import dev.sovereign.console.shell.LaunchArguments;
import dev.sovereign.console.shell.MainWindow;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.engine.admin.AdminReader;
import java.time.Clock;
import java.time.ZoneId;
import javafx.application.Application;
import javafx.application.Platform;
import javafx.scene.Scene;
import javafx.stage.Stage;

/** The desktop console: attaches to the database named on the command line, or shows the welcome page. */
public final class ConsoleApp extends Application {
    private ShellViewModel vm;
    private FxTicker ticker;

    @Override
    public void start(Stage stage) {
        Clock clock = Clock.systemUTC();
        vm = new ShellViewModel(ConsoleSettings.forUser(), new FxUiExecutor(), clock, ZoneId.systemDefault(),
                AdminReader::open, LedgerPoller.DEFAULT_INTERVAL);
        MainWindow window = new MainWindow(vm, Platform::exit);
        Scene scene = new Scene(window.create(), 1320, 820);
        window.install(scene);
        ticker = new FxTicker(clock, vm::tick);
        ticker.start();
        stage.setTitle("Sovereign console");
        vm.attachedProperty().addListener((obs, o, p) ->
                stage.setTitle(p == null ? "Sovereign console" : p.getFileName() + " \u2014 Sovereign console"));
        stage.setScene(scene);
        stage.show();
        LaunchArguments.database(getParameters().getRaw()).ifPresent(vm::attach);
    }

    @Override
    public void stop() {
        if (ticker != null) {
            ticker.stop();
        }
        if (vm != null) {
            vm.close();
        }
    }
}
