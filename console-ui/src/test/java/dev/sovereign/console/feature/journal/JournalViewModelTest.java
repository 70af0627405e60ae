package dev.sovereign.console.feature.journal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.console.fx.CurrentThreadUiExecutor;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.AdminReader;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 31, item 17: the Journal page's view model over a real ledger — its filters, the live tail that follows
 * the newest unless paused or scrolled away, the bound on the rows kept, and older rows read on request through
 * the reader. The bound is 40 here (5,000 in the console) so that a few dozen real rows reach it.
 */
class JournalViewModelTest {
    private static final int BOUND = 40;
    private static final int OLDER = 15;

    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private ShellViewModel shell;
    private JournalViewModel vm;

    /** Whether the code running now was handed to the executor's background (the test's stand-in for its thread). */
    private static final ThreadLocal<Boolean> IN_BACKGROUND = ThreadLocal.withInitial(() -> false);
    /** Reads the page made outside the background: each one would have been on the UI thread in the console. */
    private final List<String> readsOnTheUiThread = new java.util.ArrayList<>();

    private void attach() {
        shell = fx.attachedShell();
        UiExecutor inline = new CurrentThreadUiExecutor();
        UiExecutor ui = new UiExecutor() {
            @Override
            public void onUi(Runnable action) {
                inline.onUi(action);
            }

            @Override
            public <T> void background(Callable<T> work, Consumer<T> onSuccess, Consumer<Throwable> onFailure) {
                inline.background(
                        () -> {
                            IN_BACKGROUND.set(true);
                            try {
                                return work.call();
                            } finally {
                                IN_BACKGROUND.set(false);
                            }
                        },
                        onSuccess,
                        onFailure);
            }

            @Override
            public void close() {
                inline.close();
            }
        };
        // the page's own reads go through this reader: every one must come from the background
        AdminReader watched = (AdminReader) Proxy.newProxyInstance(
                AdminReader.class.getClassLoader(), new Class<?>[] {AdminReader.class}, (proxy, method, args) -> {
                    if (!IN_BACKGROUND.get()) {
                        readsOnTheUiThread.add(method.getName());
                    }
                    try {
                        return method.invoke(fx.reader, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
        vm = new JournalViewModel(shell.ledger(), shell.formats(), ui, () -> watched, BOUND, OLDER);
        vm.activeProperty().set(true);
    }

    /** {@code n} acquire-and-release pairs by {@code e} on {@code actor}: two journal rows each, a second apart. */
    private void churn(Engine e, String actor, int n) {
        for (int i = 0; i < n; i++) {
            Lease l = e.leases().acquire(actor, Duration.ofSeconds(30));
            fx.clock.advance(Duration.ofSeconds(1));
            e.leases().release(actor, l.token());
        }
    }

    private static List<Long> seqs(List<JournalEntry> rows) {
        return rows.stream().map(JournalEntry::seq).toList();
    }

    @Test
    void filtersByKindActorProcessAndTime() {
        Engine a = fx.engine("worker A");
        Engine b = fx.engine("worker B");
        a.actors().add("operator");
        a.actors().add("reviewer");
        churn(a, "operator", 3);
        long middle = fx.clock.millis();
        churn(b, "reviewer", 3);
        Lease held = a.leases().acquire("operator", Duration.ofSeconds(30));
        try {
            b.leases().acquire("operator", Duration.ofSeconds(30));
        } catch (Refusal expected) {
            // journalled as REJECTED
        }
        attach();
        assertThat(vm.rows()).isNotEmpty();
        assertThat(vm.rows()).extracting(JournalEntry::seq).isSorted();
        int all = vm.rows().size();

        vm.kindProperty().set("REJECTED");
        assertThat(vm.rows())
                .singleElement()
                .satisfies(e -> assertThat(e.isRejection()).isTrue());
        assertThat(vm.sentence(vm.rows().get(0))).contains("asked for actor operator");

        vm.kindProperty().set("LEASE_RELEASED");
        vm.actorProperty().set("REVIEW"); // part of a name, case ignored
        assertThat(vm.rows()).hasSize(3).allSatisfy(e -> assertThat(e.actor()).isEqualTo("reviewer"));

        vm.kindProperty().set(JournalViewModel.ALL);
        vm.actorProperty().set("");
        vm.processProperty().set("worker b");
        assertThat(vm.rows())
                .isNotEmpty()
                .allSatisfy(e -> assertThat(
                                e.process() == null
                                        ? e.resourceId()
                                        : e.process().label())
                        .isIn("worker B", b.processIdentity()));

        vm.processProperty().set("");
        String until = java.time.Instant.ofEpochMilli(middle - 1)
                .atZone(shell.formats().zone())
                .toLocalTime()
                .withNano(0)
                .toString();
        vm.toProperty().set(until);
        assertThat(vm.rows()).isNotEmpty().allSatisfy(e -> assertThat(e.at()).isLessThan(middle));
        assertThat(vm.rows().size()).isLessThan(all);
        vm.toProperty().set("");
        vm.fromProperty().set(until);
        assertThat(vm.rows()).isNotEmpty().allSatisfy(e -> assertThat(e.at()).isGreaterThanOrEqualTo(middle - 1_000));

        vm.fromProperty().set("half past ten");
        assertThat(vm.timeProblemProperty().get()).contains("is not a time");
        assertThat(vm.rows()).hasSize(all); // the time it cannot read is ignored, not guessed
        a.leases().release("operator", held.token());
    }

    @Test
    void theTailFollowsTheNewestKeepsTheBoundAndHoldsBackWhileTheReaderIsElsewhere() {
        Engine a = fx.engine("worker A");
        a.actors().add("operator");
        churn(a, "operator", 10);
        attach();
        int before = vm.rows().size();
        assertThat(before).isLessThan(BOUND);
        assertThat(vm.summaryProperty().get())
                .startsWith("Showing " + before + " events")
                .contains("at most 40 kept");

        churn(a, "operator", 30); // 60 new rows: past the bound
        shell.pollNow();
        long newest = fx.reader.snapshot().lastSeq();
        assertThat(vm.rows()).hasSize(BOUND);
        assertThat(vm.rows().get(BOUND - 1).seq())
                .as("the newest row at the bottom")
                .isEqualTo(newest);
        assertThat(seqs(vm.rows())).isSorted().doesNotHaveDuplicates();
        assertThat(vm.olderLeftProperty().get()).isTrue();
        assertThat(vm.summaryProperty().get()).startsWith("Showing the newest 40 events");

        // the operator scrolled up: nothing moves under them, the new rows are counted instead
        vm.followingProperty().set(false);
        List<Long> reading = seqs(vm.rows());
        churn(a, "operator", 2);
        shell.pollNow();
        assertThat(seqs(vm.rows())).isEqualTo(reading);
        assertThat(vm.heldProperty().get()).isEqualTo(4);
        assertThat(vm.summaryProperty().get()).contains("4 newer events not shown");

        // back at the bottom: the held rows come in, the oldest drop off
        vm.followingProperty().set(true);
        assertThat(vm.heldProperty().get()).isZero();
        assertThat(vm.rows()).hasSize(BOUND);
        assertThat(vm.rows().get(BOUND - 1).seq())
                .isEqualTo(fx.reader.snapshot().lastSeq());

        // paused: counted, not added, even with room
        vm.pausedProperty().set(true);
        List<Long> paused = seqs(vm.rows());
        churn(a, "operator", 1);
        shell.pollNow();
        assertThat(seqs(vm.rows())).isEqualTo(paused);
        assertThat(vm.heldProperty().get()).isEqualTo(2);
        assertThat(vm.summaryProperty().get()).contains("2 newer events while paused");
        vm.pausedProperty().set(false);
        assertThat(vm.rows().get(BOUND - 1).seq())
                .isEqualTo(fx.reader.snapshot().lastSeq());
        assertThat(vm.followingProperty().get()).isTrue();
    }

    @Test
    void olderRowsAreReadOnRequestWithinTheBoundAndJumpToNewestComesBack() {
        Engine a = fx.engine("worker A");
        a.actors().add("operator");
        a.actors().add("reviewer");
        churn(a, "operator", 30);
        attach();
        churn(a, "reviewer", 20);
        shell.pollNow();
        assertThat(vm.rows()).hasSize(BOUND);
        long oldestShown = vm.rows().get(0).seq();
        int reads = fx.reader.eventReads.get();

        vm.loadOlder(); // read through the reader (in the background in the console)
        assertThat(fx.reader.eventReads.get()).isGreaterThan(reads);
        assertThat(vm.rows()).hasSize(BOUND);
        assertThat(vm.rows().get(0).seq()).isLessThan(oldestShown);
        assertThat(vm.rows().get(OLDER).seq())
                .as("the page added above the old top")
                .isEqualTo(oldestShown);
        assertThat(seqs(vm.rows())).isSorted().doesNotHaveDuplicates();
        assertThat(vm.followingProperty().get())
                .as("reading back in time: not following")
                .isFalse();
        assertThat(vm.heldProperty().get()).as("the newest rows gave way").isEqualTo(OLDER);

        // an older page with a filter: only matching rows, still contiguous in what was looked at
        vm.actorProperty().set("operator");
        assertThat(vm.rows()).allSatisfy(e -> assertThat(e.actor()).isEqualTo("operator"));
        while (vm.olderLeftProperty().get()) {
            vm.loadOlder();
        }
        assertThat(vm.rows())
                .hasSize(BOUND)
                .allSatisfy(e -> assertThat(e.actorLane()).isEqualTo("operator"));

        vm.actorProperty().set("");
        vm.jumpToNewest();
        assertThat(vm.followingProperty().get()).isTrue();
        assertThat(vm.heldProperty().get()).isZero();
        assertThat(vm.rows()).hasSize(BOUND);
        assertThat(vm.rows().get(BOUND - 1).seq())
                .isEqualTo(fx.reader.snapshot().lastSeq());
        assertThat(readsOnTheUiThread)
                .as("the page reads the database only in the background, never on the UI thread")
                .isEmpty();
    }
}
