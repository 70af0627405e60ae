package dev.sovereign.console.shell;

import dev.sovereign.console.feature.processes.StopProcessAction;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.BooleanBinding;
import javafx.beans.property.ObjectProperty;

/**
 * Actions → Stop selected process… (Ctrl+Shift+S) from every page: which of the two "Stop process…" it means —
 * the Process page's own process while that page shows, else the process selected on the Processes page.
 * UI-thread confined.
 */
public final class ProcessStopping {
    private final ObjectProperty<Page> page;
    private final StopProcessAction processesPage;
    private final StopProcessAction processPage;
    private final BooleanBinding canStopSelected;

    /**
     * @param processesPage the Processes page's "Stop process…", about its selected row
     * @param processPage   the Process page's own, about the process it shows
     */
    ProcessStopping(ObjectProperty<Page> page, StopProcessAction processesPage, StopProcessAction processPage) {
        this.page = page;
        this.processesPage = processesPage;
        this.processPage = processPage;
        canStopSelected = Bindings.createBooleanBinding(
                () -> target().canStopProperty().get(),
                page,
                processesPage.canStopProperty(),
                processPage.canStopProperty());
    }

    /**
     * Stops the selected process after asking, in its page (which it shows), as the page's button does; nothing when
     * there is no such process, it is stopped already, or the console cannot act.
     */
    public void stopSelectedProcess() {
        StopProcessAction a = target();
        if (!a.canStopProperty().get()) {
            return;
        }
        if (a == processesPage && page.get() != Page.PROCESSES) {
            page.set(Page.PROCESSES); // the question is asked where the row is
        }
        a.ask();
    }

    /** Whether {@link #stopSelectedProcess} would act. */
    public BooleanBinding canStopSelectedProcessProperty() {
        return canStopSelected;
    }

    /** The Processes page's "Stop process…" (the process page has its own). */
    public StopProcessAction processesPage() {
        return processesPage;
    }

    private StopProcessAction target() {
        return page.get() == Page.PROCESS ? processPage : processesPage;
    }
}
