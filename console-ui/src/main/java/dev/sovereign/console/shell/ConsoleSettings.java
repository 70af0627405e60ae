package dev.sovereign.console.shell;

import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.prefs.Preferences;

/**
 * What the console remembers across runs (theme, recent files, the last directory), in a
 * {@link Preferences} node: the user's node in the app, a throw-away node in tests.
 * Thread-safe (Preferences is).
 */
public final class ConsoleSettings {
    public static final int MAX_RECENT = 8;
    private static final String THEME = "theme";
    private static final String UTC_TIMES = "utcTimes";
    private static final String ZOOMS = "timelineSpans";
    private static final String ALERTS = "alerts";
    private static final String RECENT = "recentFiles";
    private static final String LAST_DIRECTORY = "lastDirectory";
    private static final String WINDOW = "window";

    private final Preferences node;

    public ConsoleSettings(Preferences node) {
        this.node = node;
    }

    /** The user's settings: {@code dev/sovereign/console} under the user root. */
    public static ConsoleSettings forUser() {
        return new ConsoleSettings(Preferences.userRoot().node("dev/sovereign/console"));
    }

    public ConsoleTheme theme() {
        try {
            return ConsoleTheme.valueOf(node.get(THEME, ConsoleTheme.LIGHT.name()));
        } catch (IllegalArgumentException e) {
            return ConsoleTheme.LIGHT;
        }
    }

    /** The timeline's window last used on {@code database}, in ms, or 0 if none was remembered. */
    public long timelineSpan(Path database) {
        return node.node(ZOOMS).getLong(key(database), 0);
    }

    public void setTimelineSpan(Path database, long ms) {
        node.node(ZOOMS).putLong(key(database), ms);
    }

    /** A preferences key for a path (keys are at most 80 characters): a hash of it. */
    private static String key(Path database) {
        return Integer.toHexString(
                database.toAbsolutePath().normalize().toString().hashCode());
    }

    /** Whether alerts (a run turned worker-lost, a spike of refused writes) are raised; on by default. */
    public boolean alerts() {
        return node.getBoolean(ALERTS, true);
    }

    public void setAlerts(boolean on) {
        node.putBoolean(ALERTS, on);
    }

    /** Whether times are shown in UTC rather than the machine's zone (off by default). */
    public boolean utcTimes() {
        return node.getBoolean(UTC_TIMES, false);
    }

    public void setUtcTimes(boolean utc) {
        node.putBoolean(UTC_TIMES, utc);
    }

    public void setTheme(ConsoleTheme theme) {
        node.put(THEME, theme.name());
    }

    /** The recent FILES, most recent first (a server in the list is left out here). */
    public List<Path> recentFiles() {
        List<Path> out = new ArrayList<>();
        for (LedgerLocation l : recentLocations()) {
            l.file().ifPresent(out::add);
        }
        return out;
    }

    /**
     * Recent ledgers, most recent first: files, and servers' URLs exactly as stored — with every secret REMOVED
     * ({@link LedgerLocation#withoutSecrets()}), so no password is ever written to the settings (decision 0423).
     */
    public List<LedgerLocation> recentLocations() {
        List<LedgerLocation> out = new ArrayList<>();
        for (String line : node.get(RECENT, "").split("\n")) {
            if (!line.isBlank()) {
                try {
                    out.add(
                            LedgerLocation.looksLikeUrl(line)
                                    ? LedgerLocation.parse(line).withoutSecrets()
                                    : LedgerLocation.file(Path.of(line)));
                } catch (RuntimeException unusable) {
                    // a line this version cannot read: left out
                }
            }
        }
        return out;
    }

    /** Puts {@code file} first, keeping at most {@link #MAX_RECENT}; returns the new list of files. */
    public List<Path> addRecent(Path file) {
        addRecent(LedgerLocation.file(file));
        return recentFiles();
    }

    /** Puts {@code location} (without its secrets) first, keeping at most {@link #MAX_RECENT}; returns the list. */
    public List<LedgerLocation> addRecent(LedgerLocation location) {
        LedgerLocation kept = location.withoutSecrets();
        List<LedgerLocation> list = recentLocations();
        list.remove(kept);
        list.add(0, kept);
        while (list.size() > MAX_RECENT) {
            list.remove(list.size() - 1);
        }
        store(list);
        Path parent = kept.file().map(Path::getParent).orElse(null);
        if (parent != null) {
            node.put(LAST_DIRECTORY, parent.toString());
        }
        return list;
    }

    public List<Path> removeRecent(Path file) {
        removeRecent(LedgerLocation.file(file));
        return recentFiles();
    }

    public List<LedgerLocation> removeRecent(LedgerLocation location) {
        List<LedgerLocation> list = recentLocations();
        list.remove(location.withoutSecrets());
        store(list);
        return list;
    }

    /** The window's last bounds and whether it was maximised; empty if never saved or unreadable. */
    public Optional<WindowPlacement> window() {
        String[] f = node.get(WINDOW, "").split(" ");
        if (f.length != 5) {
            return Optional.empty();
        }
        try {
            return Optional.of(new WindowPlacement(
                    Double.parseDouble(f[0]),
                    Double.parseDouble(f[1]),
                    Double.parseDouble(f[2]),
                    Double.parseDouble(f[3]),
                    Boolean.parseBoolean(f[4])));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    public void setWindow(WindowPlacement w) {
        node.put(WINDOW, w.x() + " " + w.y() + " " + w.width() + " " + w.height() + " " + w.maximized());
    }

    public Path lastDirectory() {
        String dir = node.get(LAST_DIRECTORY, null);
        return dir == null ? null : Path.of(dir);
    }

    private void store(List<LedgerLocation> list) {
        StringBuilder sb = new StringBuilder();
        list.forEach(l -> sb.append(l.withoutSecrets().text()).append('\n'));
        node.put(RECENT, sb.toString());
    }
}
