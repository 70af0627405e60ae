package dev.sovereign.engine.attack.standing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The tally of a survey run ({@code -Dsovereign.attack.survey=true}): per property, how many attacks were tried,
 * refused by the database, accepted harmlessly, and per violated rule how many and one full example. Printed and
 * written to {@code target/standing-attack-survey-<backend>.txt} when the class's properties are done.
 * Thread-safe (jqwik runs a property's tries one after the other, but the map is shared by all).
 */
final class Survey {
    private static final Map<String, Tally> TALLIES = new TreeMap<>();
    /** The backend of the tries recorded (a JVM runs one backend's attack suite). */
    private static String backend;

    private static final class Tally {
        int tries;
        int strikes;
        int refused;
        int violating;
        final Map<String, Integer> rules = new TreeMap<>();
        final Map<String, String> examples = new TreeMap<>();
    }

    private Survey() {}

    static synchronized void record(
            String backend,
            String property,
            int strikes,
            boolean anyRefused,
            Iterable<String> violations,
            String report) {
        if (Boolean.getBoolean("sovereign.attack.survey.everyTry")) {
            try {
                Files.createDirectories(Path.of("target"));
                Files.writeString(
                        Path.of("target", "standing-attack-tries.txt"),
                        "--- " + property + "\n" + report + "\n",
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        Survey.backend = backend;
        Tally t = TALLIES.computeIfAbsent(property, p -> new Tally());
        t.tries++;
        t.strikes += strikes;
        if (anyRefused) {
            t.refused++;
        }
        boolean any = false;
        Set<String> seen = new HashSet<>();
        for (String v : violations) {
            any = true;
            String rule = v.substring(1, v.indexOf(']'));
            if (seen.add(rule)) {
                t.rules.merge(rule, 1, Integer::sum);
                t.examples.putIfAbsent(rule, report);
            }
        }
        if (any) {
            t.violating++;
        }
    }

    static synchronized String text(String backend) {
        StringBuilder b = new StringBuilder("Standing attack survey on " + backend + "\n");
        TALLIES.forEach((property, t) -> {
            b.append("\n")
                    .append(property)
                    .append(": ")
                    .append(t.tries)
                    .append(" tries (")
                    .append(t.strikes)
                    .append(" strikes), ")
                    .append(t.refused)
                    .append(" with a strike the database refused, ")
                    .append(t.violating)
                    .append(" violating\n");
            t.rules.forEach((rule, n) ->
                    b.append("  ").append(rule).append(": ").append(n).append('\n'));
        });
        b.append("\nOne example per rule:\n");
        TALLIES.forEach((property, t) -> t.examples.forEach((rule, report) -> b.append("\n--- ")
                .append(property)
                .append(" / ")
                .append(rule)
                .append("\n")
                .append(report)
                .append('\n')));
        return b.toString();
    }

    static synchronized void write() {
        if (TALLIES.isEmpty()) {
            return;
        }
        String text = text(backend);
        System.out.println(text);
        try {
            Path target = Path.of("target");
            Files.createDirectories(target);
            Files.writeString(target.resolve("standing-attack-survey-" + backend + ".txt"), text);
        } catch (IOException e) {
            System.out.println("could not write the survey: " + e);
        }
    }
}
