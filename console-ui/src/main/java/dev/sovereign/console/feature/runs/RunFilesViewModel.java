package dev.sovereign.console.feature.runs;

import dev.sovereign.console.actions.DesktopOpener;
import dev.sovereign.console.fx.UiExecutor;
import dev.sovereign.console.ledger.LiveLedger;
import dev.sovereign.engine.admin.AdminSnapshot;
import dev.sovereign.engine.admin.AssignmentRow;
import dev.sovereign.engine.admin.AttemptRow;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.admin.ReceiptRow;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.ReadOnlyObjectProperty;
import javafx.beans.property.ReadOnlyObjectWrapper;
import javafx.beans.property.ReadOnlyStringProperty;
import javafx.beans.property.ReadOnlyStringWrapper;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.value.ObservableValue;

/**
 * Issue 31, item 20: the selected run's files on disk — its receipt file, shown as it is, and its output folder's
 * entries — and opening either with the desktop. Where they are comes from the receipt in the ledger ({@link
 * ReceiptRow#receiptFile()}, {@link ReceiptRow#outputDir()}); whether they are here is read from the disk in the
 * background, once per receipt selected, never on the UI thread and never per tick. Files of an attempt that ran
 * on another host are not looked for here (a PostgreSQL ledger read from another machine): the page says where
 * they are instead (decision 0918). UI-thread confined.
 */
public final class RunFilesViewModel {
    /** The most of a receipt file shown (a receipt is a few hundred bytes; a file grown past this is cut). */
    static final int RECEIPT_SHOWN = 16 * 1024;
    /** The most output entries listed. */
    static final int ENTRIES_SHOWN = 12;

    /**
     * What the disk says of one receipt's files.
     *
     * @param receiptFile    where the receipt file is (or would be)
     * @param outputDir      the attempt's output folder
     * @param receiptText    the receipt file's content, or null when it is not there
     * @param outputEntries  the output folder's entries with their sizes ({@code stdout.txt (1.2 kB)}), at most
     *                       {@value #ENTRIES_SHOWN}; null when the folder is not there
     * @param moreEntries    how many entries more the folder holds
     * @param elsewhere      why the files are not on this machine (another host), or null
     */
    public record Files(
            Path receiptFile,
            Path outputDir,
            String receiptText,
            List<String> outputEntries,
            int moreEntries,
            String elsewhere) {
        public boolean receiptHere() {
            return receiptText != null;
        }

        public boolean outputHere() {
            return outputEntries != null;
        }
    }

    private final UiExecutor ui;
    private final LiveLedger ledger;
    private final ObjectProperty<DesktopOpener> opener =
            new SimpleObjectProperty<>(this, "opener", DesktopOpener.system());
    private final ReadOnlyObjectWrapper<Files> files = new ReadOnlyObjectWrapper<>(this, "files");
    private final ReadOnlyStringWrapper problem = new ReadOnlyStringWrapper(this, "problem", "");
    /** The receipt whose files are shown (or being read): they are read again only for another receipt. */
    private ReceiptRow shownFor;

    private String thisHost;

    RunFilesViewModel(LiveLedger ledger, UiExecutor ui, ObservableValue<AssignmentRow> selected) {
        this.ledger = ledger;
        this.ui = ui;
        selected.addListener((obs, o, a) -> show(a));
        show(selected.getValue());
    }

    /** Opens files with the desktop; a test gives one that records instead. */
    public ObjectProperty<DesktopOpener> openerProperty() {
        return opener;
    }

    /** The selected run's files, or null while it has no receipt (or while they are read). */
    public ReadOnlyObjectProperty<Files> filesProperty() {
        return files.getReadOnlyProperty();
    }

    /**
     * Takes {@code host} as this console's host, and reads the selected run's files again: a test's way to be on
     * another machine than the workers of its real ledger.
     */
    public void thisHostForTests(String host) {
        thisHost = host;
        shownFor = null;
        files.set(null);
    }

    /** Why the last open failed, in one sentence; empty otherwise. */
    public ReadOnlyStringProperty problemProperty() {
        return problem.getReadOnlyProperty();
    }

    /** Why the receipt file cannot be opened from here, in one sentence; null when it can. */
    public String whyNotOpenReceipt() {
        Files f = files.get();
        return whyNot(f, f != null && f.receiptHere(), "receipt file");
    }

    /** Why the output folder cannot be opened from here, in one sentence; null when it can. */
    public String whyNotOpenOutput() {
        Files f = files.get();
        return whyNot(f, f != null && f.outputHere(), "output folder");
    }

    private String whyNot(Files f, boolean here, String what) {
        if (f == null) {
            return "This run has no receipt yet.";
        }
        if (f.elsewhere() != null) {
            return f.elsewhere();
        }
        if (!here) {
            return "The " + what + " is not on this machine's disk (a worker that died before writing it, or a data"
                    + " folder of its own).";
        }
        return opener.get().whyNot();
    }

    public void openReceipt() {
        Files f = files.get();
        if (whyNotOpenReceipt() == null) {
            open(f.receiptFile());
        }
    }

    public void openOutput() {
        Files f = files.get();
        if (whyNotOpenOutput() == null) {
            open(f.outputDir());
        }
    }

    private void open(Path target) {
        DesktopOpener o = opener.get();
        problem.set("");
        ui.background(
                () -> {
                    o.open(target);
                    return target;
                },
                done -> {},
                failed -> problem.set("Could not open " + target + ": " + failed.getMessage()));
    }

    private void show(AssignmentRow a) {
        ReceiptRow r = a == null ? null : a.receipt();
        if (Objects.equals(r, shownFor)) {
            return;
        }
        shownFor = r;
        problem.set("");
        files.set(null);
        if (r == null || r.outputDir() == null) {
            return;
        }
        String elsewhere = elsewhere(r);
        if (elsewhere != null) {
            files.set(new Files(r.receiptFile(), r.outputDir(), null, null, 0, elsewhere));
            return;
        }
        ui.background(
                () -> read(r.receiptFile(), r.outputDir()),
                read -> {
                    if (r.equals(shownFor)) {
                        files.set(read);
                    }
                },
                failed -> {
                    if (r.equals(shownFor)) {
                        files.set(new Files(r.receiptFile(), r.outputDir(), null, null, 0, null));
                    }
                });
    }

    /**
     * Where the attempt ran when it was another host than this console's, as a sentence; null when it ran here (or
     * the ledger does not say where).
     */
    private String elsewhere(ReceiptRow r) {
        AdminSnapshot s = ledger.snapshot();
        if (s == null) {
            return null;
        }
        ProcessRef ran = null;
        for (AttemptRow at : s.attempts()) {
            if (at.id().equals(r.attemptId())) {
                ran = at.process();
            }
        }
        if (ran == null || ran.host() == null || ran.host().isBlank()) {
            return null;
        }
        if (thisHost == null) {
            thisHost = ProcessRef.thisHost();
        }
        if (ran.host().equalsIgnoreCase(thisHost)) {
            return null;
        }
        return "Its files are on " + ran.host() + ", where " + ran.displayName() + " ran attempt " + r.attemptId()
                + "; this console runs on " + thisHost + ".";
    }

    /** Background thread: the receipt file's text and the output folder's entries, as far as they are there. */
    static Files read(Path receipt, Path output) {
        String text = null;
        if (receipt != null && java.nio.file.Files.isRegularFile(receipt, LinkOption.NOFOLLOW_LINKS)) {
            try (InputStream in = java.nio.file.Files.newInputStream(receipt)) {
                byte[] b = in.readNBytes(RECEIPT_SHOWN + 1);
                text = b.length > RECEIPT_SHOWN
                        ? new String(b, 0, RECEIPT_SHOWN, StandardCharsets.UTF_8) + "\n\u2026"
                        : new String(b, StandardCharsets.UTF_8);
            } catch (IOException e) {
                text = null;
            }
        }
        List<String> entries = null;
        int more = 0;
        if (output != null && java.nio.file.Files.isDirectory(output, LinkOption.NOFOLLOW_LINKS)) {
            List<Path> all = new ArrayList<>();
            try (DirectoryStream<Path> in = java.nio.file.Files.newDirectoryStream(output)) {
                for (Path p : in) {
                    all.add(p);
                }
            } catch (IOException e) {
                // listed as far as it could be
            }
            all.sort(null);
            entries = new ArrayList<>();
            for (Path p : all) {
                if (entries.size() == ENTRIES_SHOWN) {
                    more++;
                    continue;
                }
                entries.add(describe(p));
            }
            entries = List.copyOf(entries);
        }
        return new Files(receipt, output, text, entries, more, null);
    }

    private static String describe(Path p) {
        String name = p.getFileName().toString();
        try {
            if (java.nio.file.Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
                return name + "/";
            }
            return name + " (" + size(java.nio.file.Files.size(p)) + ")";
        } catch (IOException e) {
            return name;
        }
    }

    /** {@code 0 B}, {@code 812 B}, {@code 1.2 kB}, {@code 3.4 MB}. */
    static String size(long bytes) {
        if (bytes < 1_000) {
            return bytes + " B";
        }
        if (bytes < 1_000_000) {
            return String.format(Locale.ROOT, "%.1f kB", bytes / 1e3);
        }
        if (bytes < 1_000_000_000) {
            return String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
        }
        return String.format(Locale.ROOT, "%.1f GB", bytes / 1e9);
    }
}
