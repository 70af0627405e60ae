package dev.sovereign.console.feature.supervisor;

import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.SupervisorTickRow;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;

/** The last supervisor tick's report, and how long ago it ran. UI-thread confined. */
public final class SupervisorViewModel {
    private final LiveLedger ledger;
    private final Formats formats;
    private final ReadOnlyObjectWrapper<SupervisorTickRow> lastTick = new ReadOnlyObjectWrapper<>(this, "lastTick");
    private final ReadOnlyStringWrapper headline = new ReadOnlyStringWrapper(this, "headline", "");

    public SupervisorViewModel(LiveLedger ledger, Formats formats) {
        this.ledger = ledger;
        this.formats = formats;
        ledger.snapshotProperty().addListener((obs, old, s) -> refresh(s));
        ledger.nowProperty().addListener((obs, old, now) -> updateHeadline());
        refresh(ledger.snapshot());
    }

    public ReadOnlyObjectProperty<SupervisorTickRow> lastTickProperty() {
        return lastTick.getReadOnlyProperty();
    }

    /** {@code Last tick 10:42:07 (3.2 s ago) by supervisor 812 (proc_…)}, or that none ran yet. */
    public ReadOnlyStringProperty headlineProperty() {
        return headline.getReadOnlyProperty();
    }

    private void refresh(AdminSnapshot s) {
        SupervisorTickRow t = s == null ? null : s.lastTick().orElse(null);
        if (t == null ? lastTick.get() != null : !t.equals(lastTick.get())) {
            lastTick.set(t);
        }
        updateHeadline();
    }

    private void updateHeadline() {
        SupervisorTickRow t = lastTick.get();
        if (t == null) {
            headline.set(ledger.snapshot() == null ? ""
                    : "No supervisor has ticked on this database yet. Start one with 'sovereign supervisor'.");
            return;
        }
        headline.set("Last tick at " + formats.time(t.at()) + " (" + Formats.age(t.at(), ledger.now()) + ") by "
                + t.process().displayName());
    }
}
