package dev.sovereign.engine.reliability.fuzz;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.UUID;

/**
 * Hostile values for the fuzzer: nulls, empty and blank strings, control characters, huge strings,
 * unicode (astral, right-to-left, combining, a lone surrogate), SQL and path fragments, zero,
 * negative and overflowing numbers and durations — mixed with real ids from the ledger (registered
 * with {@link #remember}) so that calls get past the first check and reach the deeper ones. Seeded,
 * so a failure can be replayed. Not thread-safe.
 */
public final class BadInputs {
    private static final List<String> STRINGS = List.of(
            "",
            " ",
            "\t",
            "\n",
            "a\u0000b",
            "\u0007bell",
            "tab\there",
            "line\nbreak",
            "演员",
            "🚀",
            "𝕒𝕔𝕥𝕠𝕣",
            "\u202Eevil\u202C",
            "e\u0301",
            "\uD800",
            "\uDFFF\uD800",
            "\uFEFFbom",
            "'; DROP TABLE actors; --",
            "\" OR 1=1 --",
            "%",
            "_",
            "%_%",
            "\\",
            "NULL",
            "null",
            "../../etc/passwd",
            "a/b",
            "/",
            ".",
            "..",
            "~",
            "$HOME",
            "`id`",
            "proc_",
            "proc_x",
            "msg_",
            "asg_",
            "att_",
            "0",
            "-1",
            "9223372036854775808",
            "temporary",
            "persistent");
    private static final List<String> SPECS = List.of(
            "",
            " ",
            "scripted",
            "scripted:",
            "scripted:ms=-1",
            "scripted:ms=99999999999999999999",
            "scripted:ms=abc",
            "scripted:ms=86400001",
            "scripted:outcome=nope",
            "scripted:ms=1,,",
            "scripted:ms=0,outcome=completed",
            "scripted:ms=0,outcome=blocked",
            "scripted:ms=0,outcome=failed",
            "scripted:=",
            "scripted:ms",
            "scripted:ms=0\u0000",
            "scripted: ms = 0 ",
            "SCRIPTED:ms=0",
            "command:",
            "command:   ",
            "command",
            "nope:x",
            ":",
            "::",
            "sCrIpTeD:ms=0",
            "scripted:ms=0;outcome=x",
            "🚀:x",
            "scripted:ms=١٢");

    private final Random random;
    /** How many megabyte strings {@link #string()} has handed out; see {@link #MEGABYTES_PER_RUN}. */
    private int megabytes;

    private static final int MEGABYTES_PER_RUN = 2;
    private final List<String> actors = new ArrayList<>();
    private final List<String> messages = new ArrayList<>();
    private final List<String> assignments = new ArrayList<>();
    private final List<Long> tokens = new ArrayList<>();

    public BadInputs(long seed) {
        this.random = new Random(seed);
    }

    public Random random() {
        return random;
    }

    /** Real values the next calls may use (about 40% of the time), so they reach the deeper checks. */
    public void remember(String kind, String id) {
        switch (kind) {
            case "actor" -> actors.add(id);
            case "message" -> messages.add(id);
            case "assignment" -> assignments.add(id);
            default -> throw new IllegalArgumentException(kind);
        }
    }

    public void rememberToken(long token) {
        tokens.add(token);
    }

    public String actor() {
        return realOr(actors);
    }

    public String message() {
        return realOr(messages);
    }

    public String assignment() {
        return realOr(assignments);
    }

    private String realOr(List<String> real) {
        return !real.isEmpty() && random.nextInt(10) < 4 ? real.get(random.nextInt(real.size())) : string();
    }

    /** Any hostile string, or null. */
    public String string() {
        int dice = random.nextInt(20);
        if (dice == 0) {
            return null;
        }
        if (dice == 1) {
            return "x".repeat(201 + random.nextInt(20_000)); // just over the id limit, or far over
        }
        if (dice == 2 && random.nextInt(5) == 0 && megabytes < MEGABYTES_PER_RUN) {
            // A megabyte of text, now and then and at most twice a run: an accepted one stays in the ledger, and
            // the fuzzer reads the whole ledger after every call (one seed that sent sixty took three minutes).
            megabytes++;
            return "é".repeat(1_000_000);
        }
        if (dice == 3) {
            return randomCodePoints(1 + random.nextInt(30));
        }
        if (dice == 4) {
            return "msg_" + UUID.randomUUID();
        }
        return STRINGS.get(random.nextInt(STRINGS.size()));
    }

    private String randomCodePoints(int n) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < n; i++) {
            int cp = random.nextInt(4) == 0 ? random.nextInt(0x20) : random.nextInt(0x10FFFF);
            if (Character.isValidCodePoint(cp)) {
                b.appendCodePoint(cp);
            }
        }
        return b.toString();
    }

    /** Zero, negative, overflowing, random, or a real token (or its neighbours). */
    public long token() {
        int dice = random.nextInt(10);
        if (dice < 3 && !tokens.isEmpty()) {
            return tokens.get(random.nextInt(tokens.size())) + random.nextInt(3) - 1;
        }
        long[] edges = {
            0, -1, Long.MIN_VALUE, Long.MAX_VALUE, Long.MAX_VALUE - 1, Integer.MAX_VALUE + 1L, Integer.MIN_VALUE, 1
        };
        return dice < 8 ? edges[random.nextInt(edges.length)] : random.nextLong();
    }

    /** Null, zero, negative, a nanosecond, over a year, overflowing; now and then an ordinary one. */
    public Duration duration() {
        Duration[] edges = {
            null,
            Duration.ZERO,
            Duration.ofMillis(-1),
            Duration.ofNanos(1),
            Duration.ofNanos(999_999),
            Duration.ofMillis(1),
            Duration.ofDays(366),
            Duration.ofSeconds(Long.MAX_VALUE),
            Duration.ofSeconds(Long.MIN_VALUE),
            Duration.ofMillis(Long.MAX_VALUE),
            Duration.ofSeconds(-30),
            Duration.ofSeconds(5),
            Duration.ofDays(365)
        };
        return edges[random.nextInt(edges.length)];
    }

    /** Any hostile instant, or null: the ends of the range, the epoch, before it, and past what millis hold. */
    public Instant instant() {
        Instant[] edges = {
            null,
            Instant.MIN,
            Instant.MAX,
            Instant.EPOCH,
            Instant.ofEpochMilli(-1),
            Instant.ofEpochMilli(Long.MAX_VALUE),
            Instant.ofEpochSecond(Long.MAX_VALUE / 1_000 + 1),
            Instant.now().plus(Duration.ofDays(366))
        };
        return edges[random.nextInt(edges.length)];
    }

    public int count() {
        int[] edges = {-1, Integer.MIN_VALUE, Integer.MAX_VALUE, 0, 1, 3};
        return edges[random.nextInt(edges.length)];
    }

    /** A provider spec: malformed, unknown, out of range — or valid, but never a command to run. */
    public String providerSpec() {
        int dice = random.nextInt(12);
        if (dice == 0) {
            return null;
        }
        if (dice == 1) {
            return "scripted:" + "x".repeat(5_000);
        }
        return SPECS.get(random.nextInt(SPECS.size()));
    }

    public String workspacePolicy() {
        int dice = random.nextInt(6);
        return dice == 0 ? "temporary" : dice == 1 ? "persistent" : dice == 2 ? "TEMPORARY" : string();
    }

    // ---- the same, as command-line words (for a CLI target) ----

    /** A value as a CLI argument: never null (an empty word instead). */
    public String word() {
        String s = string();
        return s == null ? "" : s.length() > 100_000 ? s.substring(0, 100_000) : s;
    }

    public String tokenWord() {
        String[] odd = {
            "", "-1", "0", "9223372036854775808", "-9223372036854775809", "abc", "1e3", "0x10", " 7", "７", "1.5"
        };
        return random.nextBoolean() ? odd[random.nextInt(odd.length)] : Long.toString(token());
    }

    public String durationWord() {
        String[] odd = {
            "",
            "0",
            "-5s",
            "0ms",
            "500",
            "5x",
            "1.5s",
            "9999999999999999999s",
            "106751991167301d",
            "366d",
            "ms",
            "30s",
            "500ms",
            "5m",
            "PT5S",
            "5 s"
        };
        return odd[random.nextInt(odd.length)];
    }
}
