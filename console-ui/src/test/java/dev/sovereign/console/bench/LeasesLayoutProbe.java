package dev.sovereign.console.bench;

import dev.sovereign.console.feature.leases.LeasesView;
import dev.sovereign.console.feature.leases.LeasesViewModel;
import dev.sovereign.console.ledger.Formats;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.console.ledger.PollResult;
import dev.sovereign.console.shell.ConsoleTheme;
import dev.sovereign.console.shell.ThemeManager;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.LeaseRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import javafx.scene.Scene;
import javafx.stage.Stage;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testfx.framework.junit5.ApplicationExtension;
import org.testfx.framework.junit5.Start;
import org.testfx.util.WaitForAsyncUtils;

/** How the leases page's per-frame cost depends on the number of rows (no database: synthetic snapshots). */
@Tag("benchmark")
@ExtendWith(ApplicationExtension.class)
class LeasesLayoutProbe {
    private Stage stage;

    @Start
    void start(Stage stage) {
        this.stage = stage;
    }

    private static AdminSnapshot snapshot(int n, long now, int changed) {
        ProcessRef p = new ProcessRef("proc_0123456789", "worker 7101", 7101L, "vm");
        List<LeaseRow> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            long renewed = i == changed ? now : now - 500;
            rows.add(new LeaseRow(
                    String.format(Locale.ROOT, "actor-%05d", i),
                    p,
                    i + 1,
                    10_000,
                    now - 60_000,
                    renewed,
                    renewed + 10_000,
                    10));
        }
        return new AdminSnapshot(
                LedgerLocation.file(Path.of("x.db")),
                1,
                1,
                now,
                0,
                n,
                rows,
                List.of(),
                List.of(),
                List.of(),
                List.of(),
                Optional.empty());
    }

    @Test
    void tickCostByRowCount() throws Exception {
        for (int n : new int[] {Integer.getInteger("probe.n", 10_000)}) {
            LiveLedger ledger = new LiveLedger();
            long[] now = {1_800_000_000_000L};
            Scene[] scene = new Scene[1];
            WaitForAsyncUtils.asyncFx(() -> {
                        ledger.tick(now[0]);
                        LeasesViewModel vm = new LeasesViewModel(ledger);
                        scene[0] = new Scene(new LeasesView(vm, new Formats(ZoneOffset.UTC)).create(), 1320, 820);
                        scene[0].getStylesheets().add(ThemeManager.consoleStylesheet());
                        ThemeManager.apply(ConsoleTheme.LIGHT);
                        stage.setScene(scene[0]);
                        stage.show();
                        ledger.apply(new PollResult(now[0], 1, snapshot(n, now[0], -1), List.of(), List.of()));
                        scene[0].getRoot().applyCss();
                        scene[0].getRoot().layout();
                    })
                    .get();
            long[] tick = new long[Integer.getInteger("probe.ticks", 100)];
            long[] change = new long[tick.length];
            for (int i = 0; i < tick.length; i++) {
                int k = i;
                tick[i] = WaitForAsyncUtils.asyncFx(() -> {
                            long t0 = System.nanoTime();
                            now[0] += 100;
                            ledger.tick(now[0]);
                            scene[0].getRoot().layout();
                            return System.nanoTime() - t0;
                        })
                        .get();
                if (Boolean.getBoolean("probe.nochange")) {
                    continue;
                }
                change[i] = WaitForAsyncUtils.asyncFx(() -> {
                            long t0 = System.nanoTime();
                            ledger.apply(new PollResult(
                                    now[0], 2 + k, snapshot(n, now[0], (k * 7919) % n), List.of(), List.of()));
                            scene[0].getRoot().layout();
                            return System.nanoTime() - t0;
                        })
                        .get();
            }
            Arrays.sort(tick);
            Arrays.sort(change);
            System.out.printf(
                    Locale.ROOT,
                    "n=%d tick+layout median %.2f ms p95 %.2f | change+layout median %.2f ms p95 %.2f%n",
                    n,
                    tick[tick.length / 2] / 1e6,
                    tick[tick.length * 95 / 100] / 1e6,
                    change[tick.length / 2] / 1e6,
                    change[tick.length * 95 / 100] / 1e6);
        }
    }
}
