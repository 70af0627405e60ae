package dev.sovereign.engine.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sovereign.engine.journal.EventKind;
import java.time.ZoneOffset;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Every kind of the journal has a sentence of its own (issue 31, the screenshots' pass): the fallback read "Demo
 * feeder (proc_…): message sent on message msg_…" on an actor's page.
 */
class EventSentencesKindsTest {
    private static final ProcessRef P = new ProcessRef("proc_a1b2c3d4e5f6", "worker 7101", 7101L, "vm");

    @Test
    void noKindIsToldByTheFallback() {
        EventSentences sentences = new EventSentences(ZoneOffset.UTC);
        for (EventKind kind : EventKind.values()) {
            if (kind == EventKind.REJECTED) {
                continue; // told by its own method, with the tokens it compares
            }
            String type = kind.name().startsWith("MESSAGE") || kind.name().startsWith("CLAIM")
                    ? "message"
                    : kind.name().startsWith("ASSIGNMENT")
                            ? "assignment"
                            : kind.name().startsWith("ATTEMPT")
                                    ? "attempt"
                                    : kind.name().startsWith("PROCESS") ? "process" : "actor";
            JournalEntry e = new JournalEntry(
                    7, 1_000, kind.name(), type, "x_1", "operator", P, 3L, null, null, null, null, null);
            String words = kind.name().toLowerCase(Locale.ROOT).replace('_', ' ');
            assertThat(sentences.describe(e))
                    .as(kind.name())
                    .doesNotContain(": " + words + " on ")
                    .endsWith(".");
        }
    }

    @Test
    void aSentMessageAndACreatedRunSayWhoDidWhat() {
        EventSentences sentences = new EventSentences(ZoneOffset.UTC);
        JournalEntry sent = new JournalEntry(
                7, 1_000, "MESSAGE_SENT", "message", "msg_1", "operator", P, null, null, null, null, null, null);
        assertThat(sentences.describe(sent)).startsWith("Worker 7101").contains(" sent message msg_1");
        JournalEntry created = new JournalEntry(
                8,
                1_000,
                "ASSIGNMENT_CREATED",
                "assignment",
                "asg_1",
                "operator",
                P,
                null,
                null,
                null,
                null,
                null,
                null);
        assertThat(sentences.describe(created)).contains(" created assignment asg_1");
    }
}
