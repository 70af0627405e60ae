package dev.sovereign.engine.base;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Everything an {@link dev.sovereign.engine.Engine} needs, validated eagerly by {@link Builder#build()} (a bad value
 * is reported by name before any file is touched) and immutable afterwards.
 */
public final class EngineConfig {
    /** How many missed heartbeat intervals make a running process "stale". */
    public static final int STALE_AFTER_MISSED_BEATS = 3;

    /**
     * The longest duration Sovereign takes anywhere (a TTL, a busy bound, a heartbeat or supervisor interval, a clock
     * offset): 365 days (decision 0602). The one place for the limit: this class's checks, the rule book's
     * ({@code rules.Arguments}) and the supervisor loop's all read it.
     */
    public static final Duration LONGEST_DURATION = Duration.ofDays(365);

    /** The shortest: 1 ms, the unit every time is stored in. */
    public static final Duration SHORTEST_DURATION = Duration.ofMillis(1);

    private static final Pattern PROCESS_ID = Pattern.compile("proc_[A-Za-z0-9_-]{1,95}");

    private final LedgerLocation location;
    private final Path dataDirectory;
    private final Clock clock;
    private final Durability durability;
    private final Duration busyBound;
    private final Duration sqliteBusyTimeout;
    private final Duration busyRetryPauseMin;
    private final Duration busyRetryPauseMax;
    private final Duration heartbeatInterval;
    private final Duration defaultTtl;
    private final boolean heartbeat;
    private final String processKind;
    private final String processLabel;
    private final String actAs;
    private final boolean registerLazily;
    private final boolean createAsLabSandbox;
    private final CommandAllowList allowedCommands;

    private EngineConfig(Builder b) {
        this.location = b.location;
        this.dataDirectory = (b.dataDirectory != null ? b.dataDirectory : defaultDataDirectory(this.location))
                .toAbsolutePath()
                .normalize();
        this.clock = b.clock;
        this.durability = b.durability;
        this.busyBound = b.busyBound;
        this.sqliteBusyTimeout = b.sqliteBusyTimeout;
        this.busyRetryPauseMin = b.busyRetryPauseMin;
        this.busyRetryPauseMax = b.busyRetryPauseMax;
        this.heartbeatInterval = b.heartbeatInterval;
        this.defaultTtl = b.defaultTtl;
        this.heartbeat = b.heartbeat;
        this.processKind = b.processKind;
        this.processLabel = b.processLabel;
        this.actAs = b.actAs;
        this.registerLazily = b.registerLazily;
        this.createAsLabSandbox = b.createAsLabSandbox;
        this.allowedCommands = b.allowedCommands;
    }

    /**
     * The data directory of {@code database} when none is configured: {@code <stem>.data} beside it
     * ({@code work.db} → {@code work.data}).
     */
    public static Path defaultDataDirectory(Path database) {
        Path parent = database.getParent();
        String name = database.getFileName().toString();
        String stem = name.endsWith(".db") ? name.substring(0, name.length() - 3) : name;
        return (parent == null ? Path.of(".") : parent).resolve(stem + ".data");
    }

    /**
     * The data directory of a ledger when none is configured: beside a file ({@link #defaultDataDirectory(Path)});
     * for a server, a folder of this host's user named after the server and database
     * ({@code ~/.local/share/sovereign/<host>-<port>-<db>.data}): workspaces are local to the host that runs
     * the attempt (contract §15).
     */
    public static Path defaultDataDirectory(LedgerLocation location) {
        if (location.isFile()) {
            return defaultDataDirectory(location.file().orElseThrow());
        }
        String rest =
                location.text().replaceFirst("(?i)^jdbc:[a-z0-9]+:(//)?", "").replaceFirst("[?].*$", "");
        rest = rest.substring(rest.lastIndexOf('@') + 1); // never any part of a user-info password
        String name = rest.replaceAll("[^A-Za-z0-9._-]+", "-").replaceAll("^-+|-+$", "");
        return Path.of(
                System.getProperty("user.home"),
                ".local",
                "share",
                "sovereign",
                (name.isEmpty() ? "server" : name) + ".data");
    }

    public static Builder forDatabase(Path database) {
        return new Builder(database == null ? null : LedgerLocation.file(database));
    }

    /** A ledger named as a user typed it: a file path or a {@code jdbc:} URL ({@link LedgerLocation#parse}). */
    public static Builder forDatabase(String database) {
        return new Builder(database == null ? null : LedgerLocation.parse(database));
    }

    public static Builder forDatabase(LedgerLocation location) {
        return new Builder(location);
    }

    /** Where the ledger lives: a file or a server URL. */
    public LedgerLocation location() {
        return location;
    }

    /**
     * The ledger's file, for a file-based ledger (SQLite).
     *
     * @throws IllegalStateException for a server URL: use {@link #location()}
     */
    public Path database() {
        return location.file()
                .orElseThrow(() -> new IllegalStateException("The ledger " + location + " is a server, not a file."));
    }

    /** Where run workspaces ({@code runs/<assignment>/}) and receipt files live. */
    public Path dataDirectory() {
        return dataDirectory;
    }

    public Clock clock() {
        return clock;
    }

    public Durability durability() {
        return durability;
    }

    /** How long a write waits for the database lock, in total, before it is a storage error. */
    public Duration busyBound() {
        return busyBound;
    }

    /**
     * How long SQLite's own busy handler waits for the lock within one attempt ({@code PRAGMA
     * busy_timeout}) before the engine pauses and retries the whole transaction. Zero hands every
     * wait to the engine's randomized pauses. See docs/decisions/0004-busy-handling.md and
     * docs/decisions/0501-tunable-busy-wait.md.
     */
    public Duration sqliteBusyTimeout() {
        return sqliteBusyTimeout;
    }

    /** The shortest random pause between two attempts at a busy transaction. */
    public Duration busyRetryPauseMin() {
        return busyRetryPauseMin;
    }

    /** The longest random pause between two attempts at a busy transaction. */
    public Duration busyRetryPauseMax() {
        return busyRetryPauseMax;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    public Duration defaultTtl() {
        return defaultTtl;
    }

    /** Whether the engine runs its own heartbeat thread (off for short CLI calls and tests that beat by hand). */
    public boolean heartbeat() {
        return heartbeat;
    }

    public String processKind() {
        return processKind;
    }

    public String processLabel() {
        return processLabel;
    }

    /**
     * An existing process identity to act as, instead of minting a new one. Such an engine neither
     * marks that process stopped nor releases its leases when it closes.
     */
    public Optional<String> actAs() {
        return Optional.ofNullable(actAs);
    }

    /**
     * Whether the process row is written only with this engine's first write that commits, instead of when it
     * opens (docs/decisions/0304-read-only-calls-register-no-process.md). The identity is minted (or taken from
     * {@link #actAs()}) at open either way; an engine that only reads, or whose every write is refused, leaves
     * no row in {@code processes} (a refusal's REJECTED row still names the identity). Off by default: an
     * embedded engine, a worker or the console registers when it opens. With the {@linkplain #heartbeat()
     * background heartbeat} on, the heartbeat starts beating only once the engine holds a grant or was beaten
     * by hand ({@code Engine.heartbeatNow()}), since a beat is a write that would register the process
     * (decision 0315).
     */
    public boolean registerLazily() {
        return registerLazily;
    }

    /**
     * Whether a database file that this open CREATES is marked as a lab sandbox. The mark is written
     * once, with the schema, and only into a new empty ledger: on an existing file this setting
     * changes nothing, so no configuration can turn an operator's ledger into a sandbox.
     */
    public boolean createAsLabSandbox() {
        return createAsLabSandbox;
    }

    /**
     * The {@code command:} specs this engine's runs may execute; {@link CommandAllowList#none()} by
     * default. A run of any other command is refused ({@code command_not_allowed}, journalled) before
     * anything is written, and the assignment stays CREATED (docs/decisions/0800). Other provider kinds
     * are not affected.
     */
    public CommandAllowList allowedCommands() {
        return allowedCommands;
    }

    public static boolean isValidProcessIdentity(String identity) {
        return identity != null && PROCESS_ID.matcher(identity).matches();
    }

    /** Mutable builder; not thread-safe. */
    public static final class Builder {
        private final LedgerLocation location;
        private Path dataDirectory;
        private Clock clock = Clock.systemUTC();
        private Durability durability = Durability.FULL;
        private Duration busyBound = Duration.ofSeconds(5);
        private Duration sqliteBusyTimeout = Duration.ofMillis(50);
        private Duration busyRetryPauseMin = Duration.ofMillis(1);
        private Duration busyRetryPauseMax = Duration.ofMillis(14);
        private Duration heartbeatInterval = Duration.ofSeconds(1);
        private Duration defaultTtl = Duration.ofSeconds(10);
        private boolean heartbeat = true;
        private String processKind = "engine";
        private String processLabel;
        private String actAs;
        private boolean registerLazily;
        private boolean createAsLabSandbox;
        private CommandAllowList allowedCommands = CommandAllowList.none();

        private Builder(LedgerLocation location) {
            this.location = location;
        }

        public Builder dataDirectory(Path dir) {
            this.dataDirectory = dir;
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = clock;
            return this;
        }

        public Builder durability(Durability durability) {
            this.durability = durability;
            return this;
        }

        public Builder busyBound(Duration bound) {
            this.busyBound = bound;
            return this;
        }

        /** See {@link EngineConfig#sqliteBusyTimeout()}; zero or positive, at most 10 s. */
        public Builder sqliteBusyTimeout(Duration timeout) {
            this.sqliteBusyTimeout = timeout;
            return this;
        }

        /** See {@link EngineConfig#busyRetryPauseMin()}: each pause is drawn uniformly from [min, max]. */
        public Builder busyRetryPause(Duration min, Duration max) {
            this.busyRetryPauseMin = min;
            this.busyRetryPauseMax = max;
            return this;
        }

        public Builder heartbeatInterval(Duration interval) {
            this.heartbeatInterval = interval;
            return this;
        }

        public Builder defaultTtl(Duration ttl) {
            this.defaultTtl = ttl;
            return this;
        }

        public Builder heartbeat(boolean enabled) {
            this.heartbeat = enabled;
            return this;
        }

        public Builder processKind(String kind) {
            this.processKind = kind;
            return this;
        }

        public Builder processLabel(String label) {
            this.processLabel = label;
            return this;
        }

        public Builder actAs(String identity) {
            this.actAs = identity;
            return this;
        }

        /** See {@link EngineConfig#registerLazily()}; off unless set. */
        public Builder registerLazily(boolean lazily) {
            this.registerLazily = lazily;
            return this;
        }

        /**
         * Marks the database as a lab sandbox if, and only if, this open creates it (see
         * {@link EngineConfig#createAsLabSandbox()}): for the lab and its tests, never for a real ledger.
         */
        public Builder createAsLabSandbox(boolean sandbox) {
            this.createAsLabSandbox = sandbox;
            return this;
        }

        /** See {@link EngineConfig#allowedCommands()}; {@link CommandAllowList#none()} unless set. */
        public Builder allowCommands(CommandAllowList allowed) {
            this.allowedCommands = allowed;
            return this;
        }

        /**
         * Validates every value and freezes them.
         *
         * @throws IllegalArgumentException naming the first bad value: a missing database, clock or
         *     durability; a duration outside 1 ms to 365 days; a blank process kind; a malformed actAs
         */
        public EngineConfig build() {
            require(location != null, "database must not be null");
            require(clock != null, "clock must not be null");
            require(durability != null, "durability must not be null");
            require(allowedCommands != null, "allowedCommands must not be null (use CommandAllowList.none())");
            requireMillis("busyBound", busyBound);
            require(
                    sqliteBusyTimeout != null
                            && !sqliteBusyTimeout.isNegative()
                            && sqliteBusyTimeout.compareTo(Duration.ofSeconds(10)) <= 0,
                    "sqliteBusyTimeout must be between 0 and 10 s, got " + sqliteBusyTimeout);
            require(
                    busyRetryPauseMin != null && !busyRetryPauseMin.isNegative(),
                    "busyRetryPause min must be zero or positive, got " + busyRetryPauseMin);
            require(
                    busyRetryPauseMax != null
                            && busyRetryPauseMax.compareTo(busyRetryPauseMin) >= 0
                            && !busyRetryPauseMax.isZero()
                            && busyRetryPauseMax.compareTo(Duration.ofSeconds(1)) <= 0,
                    "busyRetryPause max must be positive, at most 1 s and not below min, got " + busyRetryPauseMax);
            requireMillis("heartbeatInterval", heartbeatInterval);
            requireMillis("defaultTtl", defaultTtl);
            require(processKind != null && !processKind.isBlank(), "processKind must not be blank");
            require(
                    actAs == null || isValidProcessIdentity(actAs),
                    "actAs must look like proc_<letters, digits, - or _>, got '" + actAs + "'");
            return new EngineConfig(this);
        }

        /** Stored and compared in whole milliseconds: under 1 ms would be 0, over a year overflows nothing useful. */
        private static void requireMillis(String name, Duration d) {
            require(
                    d != null && d.compareTo(SHORTEST_DURATION) >= 0 && d.compareTo(LONGEST_DURATION) <= 0,
                    name + " must be a duration from 1 ms to 365 days, got " + d);
        }

        private static void require(boolean ok, String message) {
            if (!ok) {
                throw new IllegalArgumentException(message);
            }
        }
    }
}
