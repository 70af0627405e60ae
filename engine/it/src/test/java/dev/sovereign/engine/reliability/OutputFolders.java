package dev.sovereign.engine.reliability;

import dev.sovereign.engine.run.RunFolders;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What the canonical output folders hold, read from disk after every process stopped: for each receipt,
 * the folder it names ({@code runs/<assignment>/<attempt>/output}) and every attempt marker found in the
 * files inside it. The torture workers' {@code command:} runs write {@link #MARKER} lines (their attempt id
 * and token, from the environment the engine gives the command) to stdout and into
 * {@code $SOVEREIGN_OUTPUT/result.txt}, some of them after a delay, so a stale attempt's late write would
 * show up here as another attempt's marker. Tests build bad folders by hand from the same records.
 */
public record OutputFolders(List<Folder> folders) {
    /** The line a torture command writes: {@code attempt=<id> token=<n>}. */
    public static final String MARKER = "attempt=$SOVEREIGN_ATTEMPT token=$SOVEREIGN_ATTEMPT_TOKEN";

    private static final Pattern MARK = Pattern.compile("attempt=(\\S+) token=(\\d+)");

    public static final OutputFolders NONE = new OutputFolders(List.of());

    /** One attempt marker found in a file of a folder. */
    public record Mark(String file, String attempt, long token) {}

    /** The folder a receipt names, and the markers in it (none when it does not exist). */
    public record Folder(
            long receipt,
            String assignment,
            String attempt,
            long attemptToken,
            Path dir,
            boolean exists,
            List<Mark> marks) {}

    /** Reads the folder of every receipt of {@code ledger} under {@code dataDirectory}. */
    public static OutputFolders read(Path dataDirectory, Ledger ledger) {
        List<Folder> folders = new ArrayList<>();
        for (Ledger.ReceiptRow r : ledger.receipts()) {
            Path dir = RunFolders.output(dataDirectory, r.assignment(), r.attempt());
            boolean exists = dir != null && Files.isDirectory(dir);
            folders.add(new Folder(
                    r.id(),
                    r.assignment(),
                    r.attempt(),
                    r.attemptToken(),
                    dir,
                    exists,
                    exists ? marks(dir) : List.of()));
        }
        return new OutputFolders(folders);
    }

    private static List<Mark> marks(Path dir) {
        List<Mark> marks = new ArrayList<>();
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                String text = new String(Files.readAllBytes(f), StandardCharsets.UTF_8);
                Matcher m = MARK.matcher(text);
                while (m.find()) {
                    marks.add(new Mark(dir.relativize(f).toString(), m.group(1), Long.parseLong(m.group(2))));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return marks;
    }

    public long markCount() {
        return folders.stream().mapToLong(f -> f.marks().size()).sum();
    }
}
