package dev.sovereign.console.shell;

import dev.sovereign.console.actions.OperatorDesk;
import dev.sovereign.console.feature.actor.ActorPageViewModel;
import dev.sovereign.console.feature.journal.JournalViewModel;
import dev.sovereign.console.feature.leases.LeasesViewModel;
import dev.sovereign.console.feature.mailbox.MailboxViewModel;
import dev.sovereign.console.feature.process.ProcessPageViewModel;
import dev.sovereign.console.feature.processes.ProcessesViewModel;
import dev.sovereign.console.feature.processes.StopProcessAction;
import dev.sovereign.console.feature.rejections.RejectionsViewModel;
import dev.sovereign.console.feature.runs.RunsViewModel;
import dev.sovereign.console.feature.supervisor.SupervisorViewModel;
import dev.sovereign.console.feature.timeline.TimelineViewModel;
import dev.sovereign.console.feature.trends.TrendsViewModel;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.JournalSubject;
import java.util.function.Supplier;
import javafx.beans.property.ObjectProperty;
import javafx.beans.value.ObservableValue;

/**
 * The view models of the pages that show the live ledger, built once over it, and which of them keep current only
 * while their page shows. The Lab page's view model is not one of them: it follows the attached ledger, which needs
 * the timeline and the supervisor built first. The shell's view model owns this and hands out what it holds; it
 * names no other part of the shell (the page and the subject of the Actor and Process pages come in as properties).
 *
 * <p>UI-thread confined.
 */
final class FeatureViewModels {
    private final LeasesViewModel leases;
    private final TimelineViewModel timeline;
    private final RejectionsViewModel rejections;
    private final RunsViewModel runs;
    private final MailboxViewModel mailbox;
    private final ProcessesViewModel processes;
    /** The Processes page's "Stop process…", about its selected row. */
    private final StopProcessAction processesStop;

    private final ActorPageViewModel actorPage;
    private final ProcessPageViewModel processPage;
    private final SupervisorViewModel supervisor;
    private final TrendsViewModel trends;
    private final JournalViewModel journal;

    /**
     * @param desk    this console's operator actions (retry, acknowledge, stop a process, the supervisor)
     * @param page    the page shown: the costliest pages to keep current follow it
     * @param subject the actor or process the Actor and Process pages show
     * @param ui      where the Journal page reads older rows (in the background)
     * @param reader  the attached ledger's reader, or null: the Journal page's older rows are read through it
     */
    FeatureViewModels(
            LiveLedger ledger,
            Formats formats,
            OperatorDesk desk,
            ObjectProperty<Page> page,
            ObservableValue<JournalSubject> subject,
            UiExecutor ui,
            Supplier<AdminReader> reader) {
        leases = new LeasesViewModel(ledger);
        timeline = new TimelineViewModel(ledger, formats);
        rejections = new RejectionsViewModel(ledger, formats);
        runs = new RunsViewModel(ledger, formats, desk, ui);
        mailbox = new MailboxViewModel(ledger);
        processes = new ProcessesViewModel(ledger);
        processesStop = new StopProcessAction(ledger, desk);
        actorPage = new ActorPageViewModel(ledger, formats, subject);
        processPage = new ProcessPageViewModel(ledger, formats, subject, new StopProcessAction(ledger, desk));
        supervisor = new SupervisorViewModel(ledger, formats, desk);
        trends = new TrendsViewModel(ledger);
        journal = new JournalViewModel(ledger, formats, ui, reader);
        // the timeline is the costliest view to keep current: only while it shows
        timeline.activeProperty().bind(page.isEqualTo(Page.TIMELINE));
        trends.activeProperty().bind(page.isEqualTo(Page.TRENDS));
        journal.activeProperty().bind(page.isEqualTo(Page.JOURNAL));
        actorPage.activeProperty().bind(page.isEqualTo(Page.ACTOR));
        processPage.activeProperty().bind(page.isEqualTo(Page.PROCESS));
    }

    LeasesViewModel leases() {
        return leases;
    }

    TimelineViewModel timeline() {
        return timeline;
    }

    RejectionsViewModel rejections() {
        return rejections;
    }

    RunsViewModel runs() {
        return runs;
    }

    MailboxViewModel mailbox() {
        return mailbox;
    }

    ProcessesViewModel processes() {
        return processes;
    }

    StopProcessAction processesStop() {
        return processesStop;
    }

    ActorPageViewModel actorPage() {
        return actorPage;
    }

    ProcessPageViewModel processPage() {
        return processPage;
    }

    SupervisorViewModel supervisor() {
        return supervisor;
    }

    TrendsViewModel trends() {
        return trends;
    }

    JournalViewModel journal() {
        return journal;
    }
}
