package dev.sovereign.console.shell;

import dev.sovereign.console.ledger.JournalQuery;
import dev.sovereign.console.ledger.Links;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.JournalSubject;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.stream.Stream;
import javafx.beans.binding.Bindings;
import javafx.beans.binding.ObjectBinding;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyBooleanProperty;
import javafx.beans.property.ReadOnlyBooleanWrapper;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.value.ObservableValue;

/**
 * Where the operator is and how they got there: the page shown, the actor or process its page is about, the links
 * between things (issue 17, item 7) and Back and Forward. A change of page is a move (it goes on the Back stack, up
 * to 50 places); typing a search is not, but the search goes back with the page it was typed on. The shell's view
 * model owns it; it names no other part of the shell (a poll by hand comes in as a {@link Runnable}).
 *
 * <p>UI-thread confined.
 */
public final class ShellNavigation implements Links {
    /** How many places Back remembers. */
    private static final int HISTORY = 50;

    private final LiveLedger ledger;
    private final Predicate<String> selectRun;
    private final Runnable pollByHand;
    private final Consumer<JournalQuery> filterJournal;
    private final ObjectProperty<Page> page = new SimpleObjectProperty<>(this, "page", Page.LEASES);
    /** The actor or process the Actor / Process page shows (null before the first link). */
    private final ObjectProperty<JournalSubject> subject = new SimpleObjectProperty<>(this, "subject");

    private final Deque<Place> backStack = new ArrayDeque<>();
    private final Deque<Place> forwardStack = new ArrayDeque<>();
    private final ReadOnlyBooleanWrapper canBack = new ReadOnlyBooleanWrapper(this, "canBack");
    private final ReadOnlyBooleanWrapper canForward = new ReadOnlyBooleanWrapper(this, "canForward");
    /** Set while Back or Forward moves, so the move itself is not recorded. */
    private boolean moving;
    /** The search as it was when the page last changed (typing is not a move; changing page is). */
    private String searchAtLastMove = "";

    private final ObjectBinding<JournalSubject> watched = Bindings.createObjectBinding(
            () -> page.get() == Page.ACTOR || page.get() == Page.PROCESS ? subject.get() : null, page, subject);

    /**
     * @param selectRun  selects a linked run on the Runs page; false when the ledger has no such run
     * @param pollByHand reads the ledger at once when the console polls only by hand (tests), so that a page about
     *                   an actor or a process Back or Forward returns to shows its rows without waiting
     * @param filterJournal sets the Journal page's filters to the rows a link names (once the page shows)
     */
    ShellNavigation(
            LiveLedger ledger, Predicate<String> selectRun, Runnable pollByHand, Consumer<JournalQuery> filterJournal) {
        this.ledger = ledger;
        this.selectRun = selectRun;
        this.pollByHand = pollByHand;
        this.filterJournal = filterJournal;
        page.addListener((obs, from, to) -> {
            if (!moving && from != null) {
                backStack.push(new Place(from, searchAtLastMove, subject.get()));
                if (backStack.size() > HISTORY) {
                    backStack.removeLast();
                }
                forwardStack.clear();
                canBack.set(true);
                canForward.set(false);
            }
            searchAtLastMove = ledger.search().queryProperty().get();
        });
    }

    /**
     * Opens what a link names: an assignment on the Runs page (selected, whatever the filter), an actor on its
     * own page, a process on its own page. Back returns.
     */
    @Override
    public void openAssignment(String id) {
        id = complete(id, s -> s.assignments().stream().map(AssignmentRow::id));
        page.set(Page.RUNS);
        if (!selectRun.test(id)) {
            ledger.search().queryProperty().set(id);
        }
    }

    @Override
    public void openActor(String actor) {
        show(Page.ACTOR, JournalSubject.actor(actor));
    }

    @Override
    public void openProcess(String identity) {
        identity = complete(
                identity, s -> s.processes().stream().map(p -> p.process().identity()));
        show(Page.PROCESS, JournalSubject.process(identity));
    }

    @Override
    public void openMessage(String id) {
        ledger.search().queryProperty().set(id);
        page.set(Page.MAILBOX);
    }

    @Override
    public void openAttempt(String id) {
        AdminSnapshot s = ledger.snapshot();
        String assignment = s == null
                ? null
                : s.attempts().stream()
                        .filter(a -> a.id().equals(id))
                        .map(AttemptRow::assignmentId)
                        .findFirst()
                        .orElse(null);
        if (assignment != null) {
            openAssignment(assignment);
        } else {
            ledger.search().queryProperty().set(id);
            page.set(Page.RUNS);
        }
    }

    /**
     * The Journal page with the rows {@code rows} names (a point on the Trends page): shown, then filtered, so its
     * table takes the rows while it is on screen and lays its columns out to its width (rows set while the page was
     * away left the sentence column past the edge). Back returns.
     */
    @Override
    public void openJournal(JournalQuery rows) {
        page.set(Page.JOURNAL);
        filterJournal.accept(rows);
    }

    /**
     * An id as a sentence shortens it ({@code proc_3f2a1b9c…}), made whole from the snapshot when exactly one
     * thing starts so; otherwise as it was (the search finds what it can).
     */
    private String complete(String id, Function<AdminSnapshot, Stream<String>> known) {
        AdminSnapshot s = ledger.snapshot();
        if (id == null || !id.endsWith("\u2026") || s == null) {
            return id;
        }
        String prefix = id.substring(0, id.length() - 1);
        List<String> found = known.apply(s)
                .filter(x -> x != null && x.startsWith(prefix))
                .distinct()
                .limit(2)
                .toList();
        return found.size() == 1 ? found.get(0) : prefix;
    }

    /** Shows {@code p} about {@code about}; the place left goes on the Back stack (also from one actor to another). */
    private void show(Page p, JournalSubject about) {
        Place to = new Place(p, ledger.search().queryProperty().get(), about);
        if (to.equals(here())) {
            return;
        }
        backStack.push(here());
        if (backStack.size() > HISTORY) {
            backStack.removeLast();
        }
        forwardStack.clear();
        go(to);
    }

    /** Where the operator was: a page, what the search held, and the actor or process its page was about. */
    record Place(Page page, String search, JournalSubject subject) {}

    private Place here() {
        return new Place(page.get(), ledger.search().queryProperty().get(), subject.get());
    }

    /** Goes back to the page (and search) shown before the last move. */
    public void back() {
        if (!backStack.isEmpty()) {
            forwardStack.push(here());
            go(backStack.pop());
        }
    }

    public void forward() {
        if (!forwardStack.isEmpty()) {
            backStack.push(here());
            go(forwardStack.pop());
        }
    }

    private void go(Place p) {
        moving = true;
        try {
            ledger.search().queryProperty().set(p.search());
            subject.set(p.subject());
            page.set(p.page());
        } finally {
            moving = false;
        }
        searchAtLastMove = ledger.search().queryProperty().get();
        canBack.set(!backStack.isEmpty());
        canForward.set(!forwardStack.isEmpty());
        if (p.page() == Page.ACTOR || p.page() == Page.PROCESS) {
            pollByHand.run(); // tests poll by hand: the page's rows at once
        }
    }

    /**
     * Leaves the Actor or Process page, if it shows, for the Leases page without recording the move: an actor or
     * a process of a database let go is not a place to go back to.
     */
    void leaveSubjectPage() {
        if (page.get() == Page.ACTOR || page.get() == Page.PROCESS) {
            moving = true;
            try {
                page.set(Page.LEASES);
            } finally {
                moving = false;
            }
        }
    }

    /** The actor or process whose journal rows the poller should read: only while its page shows, else null. */
    ObservableValue<JournalSubject> watchedSubject() {
        return watched;
    }

    /** The page shown. */
    public ObjectProperty<Page> pageProperty() {
        return page;
    }

    /** The actor or process the Actor and Process pages show. */
    public ReadOnlyObjectProperty<JournalSubject> subjectProperty() {
        return subject;
    }

    public ReadOnlyBooleanProperty canBackProperty() {
        return canBack.getReadOnlyProperty();
    }

    public ReadOnlyBooleanProperty canForwardProperty() {
        return canForward.getReadOnlyProperty();
    }
}
