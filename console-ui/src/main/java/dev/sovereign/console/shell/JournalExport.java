package dev.sovereign.console.shell;

import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.engine.admin.AdminReader;
import java.nio.file.Path;
import java.util.function.Supplier;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyDoubleProperty;
import javafx.beans.property.ReadOnlyDoubleWrapper;

/**
 * File → Export journal as CSV: the attached reader writes the journal in the background, the progress shows while
 * it does, and the banner says how many events went where, or why none did. One export at a time.
 * UI-thread confined; the progress arrives from the writing thread and is handed to the UI thread.
 */
public final class JournalExport {
    private final UiExecutor ui;
    private final Supplier<AdminReader> reader;
    private final ObjectProperty<Banner> banner;
    private final ReadOnlyBooleanWrapper exporting = new ReadOnlyBooleanWrapper(this, "exporting");
    private final ReadOnlyDoubleWrapper exportProgress = new ReadOnlyDoubleWrapper(this, "exportProgress");

    /**
     * @param reader the attached ledger's reader, or null while nothing is attached
     * @param banner where the outcome is said
     */
    JournalExport(UiExecutor ui, Supplier<AdminReader> reader, ObjectProperty<Banner> banner) {
        this.ui = ui;
        this.reader = reader;
        this.banner = banner;
    }

    /** Writes the journal to {@code target} as CSV in the background; progress and the outcome show. */
    public void exportJournal(Path target) {
        AdminReader r = reader.get();
        if (r == null || exporting.get()) {
            return;
        }
        exporting.set(true);
        exportProgress.set(-1);
        ui.background(
                () -> r.exportJournalCsv(
                        target,
                        (done, total) -> ui.onUi(() -> exportProgress.set(total == 0 ? 1 : (double) done / total))),
                n -> {
                    exporting.set(false);
                    exportProgress.set(1);
                    banner.set(Banner.info(
                            "Journal exported",
                            n + (n == 1 ? " event" : " events") + " written to "
                                    + target.toAbsolutePath().normalize() + "."));
                },
                problem -> {
                    exporting.set(false);
                    banner.set(new Banner(Banner.Severity.DANGER, "Export failed", Banner.oneLine(problem), false));
                });
    }

    public ReadOnlyBooleanProperty exportingProperty() {
        return exporting.getReadOnlyProperty();
    }

    /** 0..1, or -1 while the total is not known yet. */
    public ReadOnlyDoubleProperty exportProgressProperty() {
        return exportProgress.getReadOnlyProperty();
    }
}
