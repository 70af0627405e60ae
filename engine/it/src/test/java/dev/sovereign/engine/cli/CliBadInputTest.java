package dev.sovereign.engine.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.cli.CliHarness.Result;
import dev.sovereign.engine.testing.ChildJvm;
import dev.sovereign.engine.testing.Poll;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every kind of bad input, and every kind of unusable database, gives its exit code and exactly one
 * sentence on stderr: no stack trace, no exception name, nothing on stdout.
 */
class CliBadInputTest {
    @RegisterExtension
    final TempDatabase temp = new TempDatabase();

    private CliHarness cli;
    private final List<Process> children = new ArrayList<>();

    @BeforeEach
    void setUp() {
        cli = new CliHarness(temp.dir(), new SettableClock());
        cli.ok("init");
        cli.ok("actor", "add", "operator");
    }

    @AfterEach
    void stopChildren() {
        children.forEach(ChildJvm::destroy);
    }

    /** Prepares the case (files, children) and returns the arguments to run. */
    @FunctionalInterface
    interface Arrange {
        String[] args(CliBadInputTest t) throws Exception;
    }

    static Arguments bad(String name, int exit, String prefix, Arrange arrange) {
        return Arguments.of(name, exit, prefix, arrange);
    }

    static Arguments bad(String name, int exit, String prefix, String... args) {
        return bad(name, exit, prefix, t -> args);
    }

    static Stream<Arguments> cases() {
        return Stream.of(
                bad("unknown command", 2, "bad usage: Unknown command 'frobnicate'", "frobnicate"),
                bad(
                        "unknown subcommand",
                        2,
                        "bad usage: Unknown command 'steal' for 'sovereign lease'",
                        "lease",
                        "steal",
                        "operator"),
                bad("unknown option", 2, "bad usage: Unknown option '--frob'", "status", "--frob"),
                bad("no command", 2, "bad usage: 'sovereign' needs a command"),
                bad("group without command", 2, "bad usage: 'sovereign lease' needs a command", "lease"),
                bad("missing argument", 2, "bad usage: Missing required parameter: 'ACTOR'", "lease", "acquire"),
                bad(
                        "missing token",
                        2,
                        "bad usage: Missing required option: '--token=N'",
                        "lease",
                        "release",
                        "operator"),
                bad(
                        "malformed duration",
                        2,
                        "bad usage: Invalid value for option '--ttl': '5x' is not a duration",
                        "lease",
                        "acquire",
                        "operator",
                        "--ttl",
                        "5x"),
                bad(
                        "duration without unit",
                        2,
                        "bad usage: Invalid value for option '--ttl': '30' is not a duration",
                        "lease",
                        "acquire",
                        "operator",
                        "--ttl",
                        "30"),
                bad(
                        "fractional duration",
                        2,
                        "bad usage: Invalid value for option '--ttl': '1.5s' is not a duration",
                        "lease",
                        "acquire",
                        "operator",
                        "--ttl",
                        "1.5s"),
                bad(
                        "zero duration",
                        2,
                        "bad usage: Invalid value for option '--ttl': '0s' is zero",
                        "lease",
                        "acquire",
                        "operator",
                        "--ttl",
                        "0s"),
                bad(
                        "duration too long for a lease",
                        2,
                        "bad input (invalid_argument): A lease TTL must be at most 365 days",
                        "lease",
                        "acquire",
                        "operator",
                        "--ttl",
                        "9000h"),
                // every duration within the rule book's limits, checked before anything opens (issue 26; was exit 70)
                bad(
                        "a worker's ttl beyond a year",
                        2,
                        "bad input (invalid_argument): A lease TTL must be at most 365" + " days, got 8761h",
                        "worker",
                        "--actor",
                        "operator",
                        "--ttl",
                        "8761h"),
                bad(
                        "a run's ttl beyond a year",
                        2,
                        "bad input (invalid_argument): A run TTL must be at most 365 days," + " got 8761h",
                        "run",
                        "asg_nope",
                        "--ttl",
                        "8761h"),
                bad(
                        "a busy timeout beyond a year",
                        2,
                        "bad input (invalid_argument): A busy timeout (--busy-timeout)"
                                + " must be at most 365 days, got 99999999h",
                        "--busy-timeout",
                        "99999999h",
                        "lease",
                        "list"),
                bad(
                        "a clock offset beyond a year",
                        2,
                        "bad input (invalid_argument): A clock offset (--clock-offset)"
                                + " must be at most 365 days either way, got 9999999h",
                        "worker",
                        "--actor",
                        "operator",
                        "--clock-offset=9999999h"),
                bad(
                        "a worker's idle wait beyond a year",
                        2,
                        "bad input (invalid_argument): An idle wait (--idle) must" + " be at most 365 days",
                        "worker",
                        "--actor",
                        "operator",
                        "--idle",
                        "9000h"),
                bad(
                        "a supervisor interval beyond a year",
                        2,
                        "bad input (invalid_argument): A supervisor interval"
                                + " (--interval) must be at most 365 days, got 9000h",
                        "supervisor",
                        "--interval",
                        "9000h"),
                // a run's TTL must span two of its heartbeats (decision 0114; the CLI beats at a third, at least 50 ms)
                bad(
                        "a run's ttl shorter than two beats",
                        2,
                        "bad input (invalid_argument): A run TTL must be at least"
                                + " 2 heartbeat intervals (this engine beats every 50ms), got 60ms",
                        "run",
                        "asg_nope",
                        "--ttl",
                        "60ms"),
                bad(
                        "a worker's ttl shorter than two beats",
                        2,
                        "bad input (invalid_argument): A run TTL must be at"
                                + " least 2 heartbeat intervals (this engine beats every 50ms), got 99ms",
                        "worker",
                        "--actor",
                        "operator",
                        "--ttl",
                        "99ms"),
                // an id that can never name an actor gets no 'actor add' suggestion (issue 26)
                bad(
                        "an empty actor on acquire",
                        2,
                        "bad input (unknown_actor): There is no actor named '', and there"
                                + " cannot be: an actor id is 1 to 200 printable characters",
                        "lease",
                        "acquire",
                        ""),
                bad(
                        "non-numeric token",
                        2,
                        "bad usage: Invalid value for option '--token': 'abc' is not a fencing token",
                        "lease",
                        "renew",
                        "operator",
                        "--token",
                        "abc"),
                bad(
                        "negative token",
                        2,
                        "bad usage: Invalid value for option '--token': '-3' is not a fencing token",
                        "lease",
                        "renew",
                        "operator",
                        "--token",
                        "-3"),
                bad(
                        "zero token",
                        2,
                        "bad usage: Invalid value for option '--token': '0' is not a fencing token",
                        "lease",
                        "release",
                        "operator",
                        "--token",
                        "0"),
                bad(
                        "token beyond 64 bits",
                        2,
                        "bad usage: Invalid value for option '--token': '99999999999999999999'" + " is too large",
                        "lease",
                        "release",
                        "operator",
                        "--token",
                        "99999999999999999999"),
                bad(
                        "zero limit",
                        2,
                        "bad usage: Invalid value for option '--limit': '0' is out of range",
                        "events",
                        "--limit",
                        "0"),
                bad(
                        "negative since",
                        2,
                        "bad usage: Invalid value for option '--since': '-1' is negative",
                        "events",
                        "--since",
                        "-1"),
                bad(
                        "malformed process identity",
                        2,
                        "bad usage: Invalid value for option '--process': '1234'",
                        "--process",
                        "1234",
                        "status"),
                bad(
                        "unknown actor on acquire",
                        2,
                        "bad input (unknown_actor): There is no actor named 'ghost'",
                        "lease",
                        "acquire",
                        "ghost"),
                bad(
                        "unknown actor on renew",
                        2,
                        "bad input (unknown_actor): There is no actor named 'ghost'",
                        "--process",
                        "proc_a",
                        "lease",
                        "renew",
                        "ghost",
                        "--token",
                        "1"),
                bad(
                        "unknown actor on release",
                        2,
                        "bad input (unknown_actor): There is no actor named 'ghost'",
                        "lease",
                        "release",
                        "ghost",
                        "--token",
                        "1"),
                bad(
                        "unknown workspace policy",
                        2,
                        "bad input (unknown_workspace_policy): Unknown workspace policy 'weird'",
                        "actor",
                        "add",
                        "x",
                        "--workspace-policy",
                        "weird"),
                bad(
                        "missing database directory",
                        3,
                        "storage error (missing_directory): Cannot open ",
                        t -> new String[] {
                            "--db", t.temp.dir().resolve("no/such/dir/x.db").toString(), "status"
                        }),
                bad("missing database file", 3, "storage error (missing_file): There is no database at ", t ->
                        new String[] {"--db", t.temp.dir().resolve("absent.db").toString(), "status"}),
                bad(
                        "init in a missing directory",
                        3,
                        "storage error (missing_directory): Cannot open ",
                        t -> new String[] {
                            "--db", t.temp.dir().resolve("no/such/dir/x.db").toString(), "init"
                        }),
                bad("a directory as database", 3, "storage error (not_ours): ", t ->
                        new String[] {"--db", t.temp.dir().toString(), "status"}),
                bad("a text file", 3, "storage error (not_ours): ", CliBadInputTest::textFile),
                bad("a foreign SQLite file", 3, "storage error (not_ours): ", CliBadInputTest::foreignSqliteFile),
                bad("a newer schema", 3, "storage error (schema_too_new): ", CliBadInputTest::newerSchema),
                bad("a database locked past the bound", 3, "storage error (busy): ", CliBadInputTest::lockedDatabase),
                bad(
                        "a refused write with --json still says one sentence",
                        2,
                        "bad input (unknown_actor): ",
                        "lease",
                        "acquire",
                        "ghost",
                        "--json"),
                // mailbox
                bad(
                        "send without --to",
                        2,
                        "bad usage: Missing required option: '--to=B'",
                        "send",
                        "--from",
                        "ops",
                        "--subject",
                        "s"),
                bad(
                        "send without --subject",
                        2,
                        "bad usage: Missing required option: '--subject=S'",
                        "send",
                        "--from",
                        "ops",
                        "--to",
                        "operator"),
                bad(
                        "send to an unknown actor",
                        2,
                        "bad input (unknown_actor): There is no actor named 'ghost'",
                        "send",
                        "--from",
                        "ops",
                        "--to",
                        "ghost",
                        "--subject",
                        "s"),
                bad(
                        "send with an empty sender",
                        2,
                        "bad input (invalid_argument): A message sender must be",
                        "send",
                        "--from",
                        "",
                        "--to",
                        "operator",
                        "--subject",
                        "s"),
                bad(
                        "negative max retries",
                        2,
                        "bad usage: Invalid value for option '--max-retries': '-1' is out of range",
                        "send",
                        "--from",
                        "ops",
                        "--to",
                        "operator",
                        "--subject",
                        "s",
                        "--max-retries",
                        "-1"),
                bad(
                        "non-numeric max retries",
                        2,
                        "bad usage: Invalid value for option '--max-retries': 'many'" + " is not a retry count",
                        "send",
                        "--from",
                        "ops",
                        "--to",
                        "operator",
                        "--subject",
                        "s",
                        "--max-retries",
                        "many"),
                bad(
                        "inbox of an unknown actor",
                        2,
                        "bad input (unknown_actor): There is no actor named 'ghost'",
                        "inbox",
                        "ghost"),
                bad("inbox without an actor", 2, "bad usage: Missing required parameter: 'ACTOR'", "inbox"),
                bad(
                        "messages in an unknown state",
                        2,
                        "bad usage: Invalid value for option '--state': expected one of"
                                + " [NEW, CLAIMED, DONE, DEAD]",
                        "messages",
                        "--state",
                        "lost"),
                bad(
                        "claim of an unknown message",
                        2,
                        "bad input (message_missing): ",
                        "--process",
                        "proc_a",
                        "claim",
                        "msg_nope",
                        "--actor",
                        "operator"),
                bad(
                        "claim without --actor",
                        2,
                        "bad usage: Missing required option: '--actor=A'",
                        "--process",
                        "proc_a",
                        "claim",
                        "msg_nope"),
                bad(
                        "claim without a message",
                        2,
                        "bad usage: Missing required parameter: 'MSG'",
                        "--process",
                        "proc_a",
                        "claim",
                        "--actor",
                        "operator"),
                bad(
                        "claim without --process",
                        2,
                        "bad usage: 'sovereign claim' needs --process ID: only the process"
                                + " hosting actor operator may claim",
                        "claim",
                        "msg_nope",
                        "--actor",
                        "operator"),
                bad(
                        "claim with a malformed ttl",
                        2,
                        "bad usage: Invalid value for option '--ttl': 'soon'",
                        "--process",
                        "proc_a",
                        "claim",
                        "msg_nope",
                        "--actor",
                        "operator",
                        "--ttl",
                        "soon"),
                bad(
                        "complete of an unknown message",
                        2,
                        "bad input (message_missing): ",
                        "--process",
                        "proc_a",
                        "complete",
                        "msg_nope",
                        "--token",
                        "1"),
                bad(
                        "complete without --token",
                        2,
                        "bad usage: Missing required option: '--token=N'",
                        "--process",
                        "proc_a",
                        "complete",
                        "msg_nope"),
                bad(
                        "complete with a non-numeric token",
                        2,
                        "bad usage: Invalid value for option '--token': 'two' is" + " not a fencing token",
                        "--process",
                        "proc_a",
                        "complete",
                        "msg_nope",
                        "--token",
                        "two"),
                bad(
                        "complete with a negative token",
                        2,
                        "bad usage: Invalid value for option '--token': '-2' is not" + " a fencing token",
                        "--process",
                        "proc_a",
                        "complete",
                        "msg_nope",
                        "--token",
                        "-2"),
                bad(
                        "complete without --process",
                        2,
                        "bad usage: 'sovereign complete' needs --process ID",
                        "complete",
                        "msg_nope",
                        "--token",
                        "1"),
                bad(
                        "dead-letter of an unknown message",
                        2,
                        "bad input (message_missing): ",
                        "--process",
                        "proc_a",
                        "dead-letter",
                        "msg_nope",
                        "--token",
                        "1"),
                bad(
                        "dead-letter with a zero token",
                        2,
                        "bad usage: Invalid value for option '--token': '0' is not" + " a fencing token",
                        "--process",
                        "proc_a",
                        "dead-letter",
                        "msg_nope",
                        "--token",
                        "0"),
                bad(
                        "dead-letter without --token",
                        2,
                        "bad usage: Missing required option: '--token=N'",
                        "--process",
                        "proc_a",
                        "dead-letter",
                        "msg_nope"),
                bad(
                        "dead-letter without --process",
                        2,
                        "bad usage: 'sovereign dead-letter' needs --process ID",
                        "dead-letter",
                        "msg_nope",
                        "--token",
                        "1"),
                // assignments
                bad(
                        "assign without --provider",
                        2,
                        "bad usage: Missing required option: '--provider=SPEC'",
                        "assign",
                        "operator"),
                bad(
                        "assign with a malformed provider spec",
                        2,
                        "bad input (unknown_provider): Cannot use provider" + " spec 'scripted:ms=soon'",
                        "assign",
                        "operator",
                        "--provider",
                        "scripted:ms=soon"),
                bad(
                        "assign with an unknown provider kind",
                        2,
                        "bad input (unknown_provider): Cannot use provider spec"
                                + " 'teleport:now': there is no provider kind 'teleport'",
                        "assign",
                        "operator",
                        "--provider",
                        "teleport:now"),
                bad(
                        "assign with an empty provider spec",
                        2,
                        "bad input (unknown_provider): ",
                        "assign",
                        "operator",
                        "--provider",
                        ""),
                bad(
                        "assign to an unknown actor",
                        2,
                        "bad input (unknown_actor): There is no actor named 'ghost'",
                        "assign",
                        "ghost",
                        "--provider",
                        "scripted"),
                bad(
                        "assign with an unknown workspace policy",
                        2,
                        "bad input (unknown_workspace_policy): ",
                        "assign",
                        "operator",
                        "--provider",
                        "scripted",
                        "--workspace-policy",
                        "forever"),
                bad(
                        "run of an unknown assignment",
                        2,
                        "bad input (assignment_missing): There is no assignment" + " 'asg_nope'",
                        "run",
                        "asg_nope"),
                bad("run without an assignment", 2, "bad usage: Missing required parameter: 'ASSIGNMENT'", "run"),
                bad(
                        "run with a malformed ttl",
                        2,
                        "bad usage: Invalid value for option '--ttl': '-5s' is not a" + " duration",
                        "run",
                        "asg_nope",
                        "--ttl",
                        "-5s"),
                bad("retry of an unknown assignment", 2, "bad input (assignment_missing): ", "retry", "asg_nope"),
                bad(
                        "acknowledge of an unknown assignment",
                        2,
                        "bad input (assignment_missing): ",
                        "acknowledge",
                        "asg_nope"),
                bad(
                        "steal-fence of an unknown assignment",
                        2,
                        "bad input (assignment_missing): ",
                        "steal-fence",
                        "asg_nope"),
                bad(
                        "assignments in an unknown state",
                        2,
                        "bad usage: Invalid value for option '--state': expected one"
                                + " of [CREATED, RUNNING, COMPLETED, BLOCKED, FAILED]",
                        "assignments",
                        "--state",
                        "done"),
                // long-running commands
                bad("worker without --actor", 2, "bad usage: Missing required option: '--actor=A'", "worker"),
                bad(
                        "worker for an unknown actor",
                        2,
                        "bad input (unknown_actor): There is no actor named 'ghost'",
                        "worker",
                        "--actor",
                        "ghost"),
                bad(
                        "worker with a malformed clock offset",
                        2,
                        "bad usage: Invalid value for option '--clock-offset':" + " '-30 seconds' is not a duration",
                        "worker",
                        "--actor",
                        "operator",
                        "--clock-offset=-30 seconds"),
                bad(
                        "supervisor with a zero interval",
                        2,
                        "bad usage: Invalid value for option '--interval': '0s' is" + " zero",
                        "supervisor",
                        "--interval",
                        "0s"),
                bad(
                        "supervisor with an unknown option",
                        2,
                        "bad usage: Unknown option '--forever'",
                        "supervisor",
                        "--forever"),
                bad("serve without --stdio", 2, "bad usage: Missing required option: '--stdio'", "serve"),
                bad(
                        "serve as another identity",
                        2,
                        "bad usage: 'serve' is a process of its own and takes no --process",
                        "--process",
                        "proc_other",
                        "serve",
                        "--stdio"),
                bad("serve on a missing database", 3, "storage error (missing_file): ", t ->
                        new String[] {"--db", t.temp.dir().resolve("absent.db").toString(), "serve", "--stdio"}),
                bad("supervisor on a missing database", 3, "storage error (missing_file): ", t ->
                        new String[] {"--db", t.temp.dir().resolve("absent.db").toString(), "supervisor", "--once"}),
                bad(
                        "a server URL no backend on the class path serves",
                        3,
                        "storage error (io): No storage backend can"
                                + " open jdbc:mysql://op:***@localhost:1/ledger?password=***: the backends on the class path are",
                        "--db",
                        "jdbc:mysql://op:" + SECRET + "@localhost:1/ledger?password=" + SECRET,
                        "status"),
                bad(
                        "a PostgreSQL server that does not answer",
                        3,
                        "storage error (io): Cannot connect to the PostgreSQL"
                                + " ledger jdbc:postgresql://localhost:1/ledger?user=op&password=***",
                        "--db",
                        "jdbc:postgresql://localhost:1/ledger?user=op&password=" + SECRET,
                        "status"),
                // the lab runs on a server's sandbox (decision 0909): one that does not answer is a storage error
                bad(
                        "the lab on a PostgreSQL server that does not answer",
                        3,
                        "storage error (io): Cannot connect to"
                                + " the PostgreSQL ledger jdbc:postgresql://localhost:1/ledger?password=***",
                        "--db",
                        "jdbc:postgresql://localhost:1/ledger?password=" + SECRET,
                        "lab",
                        "two-racers"));
    }

    /** A password planted in a URL: it must never come back in any output. */
    private static final String SECRET = "hunter2-planted";

    @ParameterizedTest(name = "{0} -> exit {1}")
    @MethodSource("cases")
    void badInputGivesItsExitCodeAndExactlyOneSentence(String name, int exit, String prefix, Arrange arrange)
            throws Exception {
        String[] args = arrange.args(this);

        Result r = cli.run(args);
        assertThat(r.out() + r.err()).doesNotContain(SECRET);
        try (var files = Files.list(temp.dir())) {
            assertThat(files.map(f -> f.getFileName().toString()))
                    .as("no file named after a URL")
                    .noneMatch(f -> f.startsWith("jdbc"));
        }

        assertThat(r.exit()).as("exit; stderr: %s", r.err()).isEqualTo(exit);
        assertThat(r.errLines()).as("stderr").hasSize(1);
        String sentence = r.errLines().get(0);
        assertThat(sentence)
                .startsWith(prefix)
                .endsWith(".")
                .doesNotContain("Exception")
                .doesNotContain("at dev.")
                .doesNotContain("\tat ");
        if (List.of(args).contains("--json")) {
            assertThat(r.onlyJson().has("category") || r.onlyJson().has("error"))
                    .isTrue();
        } else {
            assertThat(r.out()).as("stdout").isEmpty();
        }
    }

    private String[] textFile() throws Exception {
        Path file = temp.dir().resolve("notes.txt");
        Files.writeString(file, "these are my notes, not a database\n".repeat(100));
        return new String[] {"--db", file.toString(), "status"};
    }

    private String[] foreignSqliteFile() throws Exception {
        Path file = temp.dir().resolve("someone-else.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file);
                Statement s = c.createStatement()) {
            s.execute("CREATE TABLE recipes (name TEXT)");
        }
        return new String[] {"--db", file.toString(), "status"};
    }

    private String[] newerSchema() throws Exception {
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + temp.file());
                Statement s = c.createStatement()) {
            s.execute("PRAGMA user_version = 99");
        }
        return new String[] {"status"};
    }

    private String[] lockedDatabase() throws Exception {
        Path log = temp.dir().resolve("lock-holder.log");
        Process holder = ChildJvm.start(LockHolder.class, log, temp.file().toString());
        children.add(holder);
        Poll.until(
                () -> contains(log, LockHolder.READY) || !holder.isAlive(),
                Duration.ofSeconds(30),
                () -> "the lock holder to take the lock");
        assertThat(holder.isAlive()).as("lock holder alive; log: %s", read(log)).isTrue();
        // a write: a call that only reads takes no write lock and registers no process (decision 0304)
        return new String[] {"--busy-timeout", "300ms", "actor", "add", "locked"};
    }

    private static boolean contains(Path file, String text) {
        return read(file).contains(text);
    }

    private static String read(Path file) {
        try {
            return Files.exists(file) ? Files.readString(file) : "";
        } catch (IOException e) {
            return "";
        }
    }
}
