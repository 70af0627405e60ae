package dev.sovereign.console.shell;

import dev.sovereign.console.feature.leases.LeasesViewModel;
import dev.sovereign.console.feature.mailbox.MailboxViewModel;
import dev.sovereign.console.feature.processes.ProcessesViewModel;
import dev.sovereign.console.feature.rejections.RejectionsViewModel;
import dev.sovereign.console.feature.runs.RunsViewModel;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.Search;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.StringProperty;

/**
 * The search across every page at once (see {@link Search}): how many rows of each table page it finds, the line
 * that says where, and Enter's jump to the first page with a hit. UI-thread confined.
 */
public final class ShellSearch {
    private final LiveLedger ledger;
    private final ObjectProperty<Page> page;
    private final LeasesViewModel leases;
    private final RunsViewModel runs;
    private final MailboxViewModel mailbox;
    private final ProcessesViewModel processes;
    private final RejectionsViewModel rejections;
    private final ReadOnlyStringWrapper summary = new ReadOnlyStringWrapper(this, "searchSummary", "");

    /** @param page the page shown, which {@link #showFirstSearchHit()} changes */
    ShellSearch(
            LiveLedger ledger,
            ObjectProperty<Page> page,
            LeasesViewModel leases,
            RunsViewModel runs,
            MailboxViewModel mailbox,
            ProcessesViewModel processes,
            RejectionsViewModel rejections) {
        this.ledger = ledger;
        this.page = page;
        this.leases = leases;
        this.runs = runs;
        this.mailbox = mailbox;
        this.processes = processes;
        this.rejections = rejections;
        summary.bind(Bindings.createStringBinding(
                this::describe,
                ledger.search().queryProperty(),
                leases.rows(),
                runs.assignments(),
                mailbox.rows(),
                processes.rows(),
                rejections.rows()));
    }

    /** What the search box holds: every table page shows only its rows that match (see {@link Search}). */
    public StringProperty queryProperty() {
        return ledger.search().queryProperty();
    }

    /** {@code ""} while nothing is searched; else where it was found, or that nothing matches. */
    public ReadOnlyStringProperty searchSummaryProperty() {
        return summary.getReadOnlyProperty();
    }

    /** How many rows of {@code page} the search finds; -1 for pages without a table of their own. */
    public int searchHits(Page page) {
        return switch (page) {
            case LEASES -> leases.rows().size();
            case RUNS -> runs.assignments().size();
            case MAILBOX -> mailbox.rows().size();
            case PROCESSES -> processes.rows().size();
            case REJECTIONS -> rejections.rows().size();
            default -> -1;
        };
    }

    /** Shows the first page with a hit, unless the page shown has one. */
    public void showFirstSearchHit() {
        if (!ledger.search().isActive() || searchHits(page.get()) > 0) {
            return;
        }
        for (Page p : Page.navigation()) {
            if (searchHits(p) > 0) {
                page.set(p);
                return;
            }
        }
    }

    private String describe() {
        if (!ledger.search().isActive()) {
            return "";
        }
        StringBuilder found = new StringBuilder();
        for (Page p : Page.navigation()) {
            int n = searchHits(p);
            if (n > 0) {
                found.append(found.length() == 0 ? "" : " \u00b7 ")
                        .append(p.title())
                        .append(' ')
                        .append(n);
            }
        }
        return found.length() == 0
                ? "Nothing matches \u201c"
                        + ledger.search().queryProperty().get().strip() + "\u201d."
                : "Found in " + found + ".";
    }
}
