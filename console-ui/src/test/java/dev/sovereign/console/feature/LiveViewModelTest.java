package dev.sovereign.console.feature;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.console.feature.leases.LeaseItem;
import dev.sovereign.console.feature.timeline.HolderSegment;
import dev.sovereign.console.feature.timeline.TimelineLane;
import dev.sovereign.console.feature.timeline.TimelineMarker;
import dev.sovereign.console.ledger.Health;
import dev.sovereign.console.shell.ConsoleTheme;
import dev.sovereign.console.shell.Page;
import dev.sovereign.console.shell.ShellViewModel;
import dev.sovereign.console.testing.ConsoleFixture;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.JournalEntry;
import dev.sovereign.engine.admin.LeaseState;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.lease.Lease;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.assertj.core.data.Offset;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The view models against a real engine on a real temporary database, polled by hand. */
class LiveViewModelTest {
    @RegisterExtension
    final ConsoleFixture fx = new ConsoleFixture();

    private static LeaseItem row(ShellViewModel vm, String actor) {
        return vm.leases().rows().stream()
                .filter(i -> i.actor().equals(actor))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aLeaseAcquiredByAnotherEngineAppears() {
        Engine worker = fx.engine("worker A");
        worker.actors().add("operator");
        ShellViewModel vm = fx.attachedShell();
        assertThat(row(vm, "operator").state()).isEqualTo(LeaseState.FREE);

        Lease lease = worker.leases().acquire("operator", Duration.ofSeconds(10));
        vm.pollNow();

        LeaseItem item = row(vm, "operator");
        assertThat(item.row().holder().identity()).isEqualTo(worker.processIdentity());
        assertThat(item.row().holder().label()).isEqualTo("worker A");
        assertThat(item.row().token()).isEqualTo(lease.token());
        assertThat(item.state()).isEqualTo(LeaseState.LIVE);
        assertThat(item.countdown()).isEqualTo("10.0 s of 10.0 s");
        assertThat(vm.leases().summaryProperty().get()).startsWith("1 live");
    }

    @Test
    void aTakeoverUpdatesHolderAndToken() {
        Engine a = fx.engine("worker A");
        Engine b = fx.engine("worker B");
        a.actors().add("operator");
        Lease first = a.leases().acquire("operator", Duration.ofSeconds(5));
        ShellViewModel vm = fx.attachedShell();
        LeaseItem before = row(vm, "operator");

        fx.clock.advance(Duration.ofSeconds(6));
        Lease second = b.leases().acquire("operator", Duration.ofSeconds(5));
        vm.pollNow();

        LeaseItem after = row(vm, "operator");
        assertThat(after).isSameAs(before);
        assertThat(after.row().holder().identity()).isEqualTo(b.processIdentity());
        assertThat(after.row().token()).isEqualTo(second.token()).isGreaterThan(first.token());
        assertThat(vm.timeline().lanes())
                .as("not kept current while another page shows")
                .isEmpty();
        vm.pageProperty().set(Page.TIMELINE);
        TimelineLane lane = vm.timeline().lanes().get(0);
        assertThat(lane.segments()).extracting(HolderSegment::token).containsExactly(first.token(), second.token());
        assertThat(lane.segments().get(0).endReason()).isEqualTo(HolderSegment.EndReason.TAKEN_OVER);
        assertThat(lane.segments().get(1).endReason()).isEqualTo(HolderSegment.EndReason.HOLDING);
        assertThat(lane.markers()).extracting(TimelineMarker::kind).containsExactly(TimelineMarker.Kind.TAKEOVER);
    }

    @Test
    void aStaleRenewProducesARejectionRowWithPresentedAndCurrentTokenAndTheSentence() {
        Engine a = fx.engine("worker A");
        Engine b = fx.engine("worker B");
        a.actors().add("operator");
        Lease old = a.leases().acquire("operator", Duration.ofSeconds(5));
        ShellViewModel vm = fx.attachedShell();
        assertThat(vm.rejections().rows()).isEmpty();

        fx.clock.advance(Duration.ofSeconds(6));
        Lease current = b.leases().acquire("operator", Duration.ofSeconds(5));
        assertThatThrownBy(() -> a.leases().renew("operator", old.token())).isInstanceOf(Refusal.class);
        vm.pollNow();

        assertThat(vm.rejections().rows()).singleElement().satisfies(r -> {
            assertThat(r.category()).isEqualTo("actor_lease_lost");
            assertThat(r.presentedToken()).isEqualTo(old.token());
            assertThat(r.currentToken()).isEqualTo(current.token());
            assertThat(r.sentence())
                    .startsWith("Worker A (")
                    .contains("presented token " + old.token()
                            + " for actor operator, but " + current.token() + " is current: its lease was taken over by"
                            + " worker B (");
        });
        JournalEntry rejection = vm.rejections().rows().get(0);
        vm.pageProperty().set(Page.TIMELINE);
        assertThat(vm.timeline().lanes().get(0).markers())
                .extracting(TimelineMarker::seq)
                .contains(rejection.seq());
        vm.rejections().selectedProperty().set(rejection);
        assertThat(vm.rejections().detailProperty().get()).startsWith(rejection.sentence());
    }

    @Test
    void nothingIsReReadWhenChangeMarkerDidNotChange() {
        Engine a = fx.engine("worker A");
        a.actors().add("operator");
        ShellViewModel vm = fx.attachedShell();
        assertThat(fx.reader.snapshots.get()).isEqualTo(1);
        int eventReads = fx.reader.eventReads.get();

        for (int i = 0; i < 5; i++) {
            fx.clock.advance(Duration.ofMillis(250));
            vm.pollNow();
        }

        assertThat(fx.reader.dataVersions.get()).isEqualTo(6);
        assertThat(fx.reader.snapshots.get()).isEqualTo(1);
        assertThat(fx.reader.eventReads.get()).isEqualTo(eventReads);
        // an unchanged poll reaches the FX thread once a second (issue 31 item 21): the fifth, a second after the first
        assertThat(vm.ledger().lastPollProperty().get()).isEqualTo(fx.clock.millis() - 250);

        a.leases().acquire("operator", Duration.ofSeconds(5));
        vm.pollNow();
        assertThat(fx.reader.snapshots.get()).isEqualTo(2);
    }

    @Test
    void aRefreshRereadsEvenWhenNothingChanged() {
        fx.engine("worker A").actors().add("operator");
        ShellViewModel vm = fx.attachedShell();

        vm.attachment().refresh();

        assertThat(fx.reader.snapshots.get()).isEqualTo(2);
    }

    @Test
    void theCountdownTicksFromTheLastSnapshotWithoutReading() {
        Engine a = fx.engine("worker A");
        a.actors().add("operator");
        a.leases().acquire("operator", Duration.ofSeconds(9));
        ShellViewModel vm = fx.attachedShell();
        LeaseItem item = row(vm, "operator");
        int snapshots = fx.reader.snapshots.get();

        vm.tick(fx.clock.millis() + 3_000);
        assertThat(item.fractionLeft()).isCloseTo(6.0 / 9, Offset.offset(1e-9));
        assertThat(item.state()).isEqualTo(LeaseState.LIVE);
        vm.tick(fx.clock.millis() + 6_500);
        assertThat(item.state()).isEqualTo(LeaseState.EXPIRING);
        assertThat(item.countdown()).isEqualTo("2.5 s of 9.0 s");
        vm.tick(fx.clock.millis() + 10_000);
        assertThat(item.state()).isEqualTo(LeaseState.EXPIRED);
        assertThat(item.countdown()).isEqualTo("expired 1.0 s ago");

        assertThat(fx.reader.snapshots.get()).isEqualTo(snapshots);
    }

    @Test
    void theLeaseSummaryChangesAtTheExactTickAStateDoes() {
        Engine a = fx.engine("worker A");
        a.actors().add("operator");
        a.actors().add("planner");
        Lease nine = a.leases().acquire("operator", Duration.ofSeconds(9));
        ShellViewModel vm = fx.attachedShell();
        String live = "1 live \u00b7 0 expiring \u00b7 0 expired \u00b7 1 free";

        // 9 s lease: expiring once less than 3 s is left (6 s in), expired at 9 s
        vm.tick(nine.expiresAt() - 3_000);
        assertThat(vm.leases().summaryProperty().get()).isEqualTo(live);
        vm.tick(nine.expiresAt() - 2_999);
        assertThat(vm.leases().summaryProperty().get())
                .isEqualTo("0 live \u00b7 1 expiring \u00b7 0 expired \u00b7 1 free");
        vm.tick(nine.expiresAt() - 1);
        assertThat(vm.leases().summaryProperty().get())
                .isEqualTo("0 live \u00b7 1 expiring \u00b7 0 expired \u00b7 1 free");
        vm.tick(nine.expiresAt());
        assertThat(vm.leases().summaryProperty().get())
                .isEqualTo("0 live \u00b7 0 expiring \u00b7 1 expired \u00b7 1 free");
        // a clock that steps back is recounted too
        vm.tick(nine.expiresAt() - 5_000);
        assertThat(vm.leases().summaryProperty().get()).isEqualTo(live);
    }

    @Test
    void aForeignFileIsRefusedWithABannerAndNothingAttached() throws Exception {
        Path foreign = fx.dir().resolve("notes.db");
        Files.writeString(foreign, "not a database at all ".repeat(200));
        ShellViewModel vm = fx.shell();

        vm.attach(foreign);

        assertThat(vm.attachment().attachedProperty().get()).isNull();
        assertThat(vm.bannerProperty().get().title()).isEqualTo("Not a Sovereign database");
        assertThat(vm.bannerProperty().get().text()).contains(foreign.toString());
        assertThat(vm.ledger().healthProperty().get()).isEqualTo(Health.DETACHED);
        assertThat(vm.attachment().recentFiles()).isEmpty();
    }

    @Test
    void aMissingFileSaysSoAndARecentFileIsRemembered() {
        ShellViewModel vm = fx.shell();
        vm.attach(fx.dir().resolve("missing.db"));
        assertThat(vm.bannerProperty().get().title()).isEqualTo("Database not found");

        fx.engine("worker A");
        vm.attach(fx.file());

        assertThat(vm.bannerProperty().get()).isNull();
        assertThat(vm.attachment().attachedProperty().get()).isEqualTo(fx.file());
        assertThat(fx.settings().recentFiles()).containsExactly(fx.file());
    }

    @Test
    void aFileThatDisappearsTurnsTheConnectionUnhealthyAndKeepsTheLastPicture() throws Exception {
        Engine a = fx.engine("worker A");
        a.actors().add("operator");
        ShellViewModel vm = fx.attachedShell();
        a.close();
        Files.delete(fx.file());

        vm.pollNow();

        assertThat(vm.ledger().healthProperty().get()).isEqualTo(Health.FAILING);
        assertThat(vm.bannerProperty().get().connection()).isTrue();
        assertThat(vm.leases().rows()).extracting(LeaseItem::actor).containsExactly("operator");
    }

    @Test
    void theThemeChoiceIsRemembered() {
        ShellViewModel vm = fx.shell();
        assertThat(vm.themeProperty().get()).isEqualTo(ConsoleTheme.LIGHT);

        vm.toggleTheme();

        assertThat(fx.settings().theme()).isEqualTo(ConsoleTheme.DARK);
        assertThat(fx.shell().themeProperty().get()).isEqualTo(ConsoleTheme.DARK);
    }

    @Test
    void theJournalExportsToCsvInTheBackground() throws Exception {
        Engine a = fx.engine("worker A");
        a.actors().add("operator");
        a.leases().acquire("operator", Duration.ofSeconds(5));
        ShellViewModel vm = fx.attachedShell();
        Path out = fx.dir().resolve("journal.csv");

        vm.journalExport().exportJournal(out);

        assertThat(vm.journalExport().exportingProperty().get()).isFalse();
        assertThat(vm.journalExport().exportProgressProperty().get()).isEqualTo(1.0);
        assertThat(vm.bannerProperty().get().title()).isEqualTo("Journal exported");
        assertThat(Files.readAllLines(out))
                .hasSizeGreaterThan(1)
                .first()
                .asString()
                .startsWith("seq,at,");
    }
}
