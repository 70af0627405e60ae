package dev.sovereign.console.feature.rejections;

import dev.sovereign.engine.admin.JournalEntry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One incident of the Rejections page: the refusals one late write journalled, told as one row (decision 0320).
 * A stale holder that wakes up is refused up to three times in a moment — its lease renewal, its attempt's
 * heartbeat and its run's terminal write — each journalled on its own row with the same sentence; an operator
 * reads that as one event with three parts, and counts it once. Every other refusal is an incident of one.
 * Immutable.
 *
 * @param parts the incident's refusals, oldest first (never empty)
 */
public record RefusalIncident(List<JournalEntry> parts) {
    /**
     * How far (in journal seq) a part may come after the incident's previous part and still belong to it: the
     * three refusals of one wake-up are journalled within a few rows of each other, other processes' rows
     * between them; a stale holder refused again later has started another incident.
     */
    public static final long SPAN = 100;

    public RefusalIncident {
        parts = List.copyOf(parts);
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("an incident has at least one refusal");
        }
    }

    /** The part of a late write a refusal is, or null when it is not one (then it stands alone). */
    public enum Part {
        LEASE_RENEWAL("lease renewal"),
        ATTEMPT_HEARTBEAT("attempt heartbeat"),
        TERMINAL_WRITE("terminal write");

        private final String words;

        Part(String words) {
            this.words = words;
        }

        public String words() {
            return words;
        }

        /**
         * Read from the row itself: what the refusal was about and the refusal's own first words (the engine's
         * messages, {@code LeaseRules} and {@code RunRules}); the journal has no column that names the write.
         */
        public static Part of(JournalEntry e) {
            String d = e.detail() == null ? "" : e.detail();
            if ("actor".equals(e.resourceType()) && d.startsWith("Cannot renew")) {
                return LEASE_RENEWAL;
            }
            if ("assignment".equals(e.resourceType()) && d.startsWith("The heartbeat renewal of attempt")) {
                return ATTEMPT_HEARTBEAT;
            }
            if ("assignment".equals(e.resourceType()) && d.startsWith("The terminal write")) {
                return TERMINAL_WRITE;
            }
            return null;
        }
    }

    /** The refusal that opened the incident: the row the table shows and selects. */
    public JournalEntry lead() {
        return parts.get(0);
    }

    /** The newest of its refusals. */
    public JournalEntry newest() {
        return parts.get(parts.size() - 1);
    }

    public int size() {
        return parts.size();
    }

    /** {@code lease renewal, attempt heartbeat, terminal write}: what each refusal was, oldest first. */
    public String partWords() {
        List<String> words = new ArrayList<>();
        for (JournalEntry e : parts) {
            Part p = Part.of(e);
            words.add(p == null ? "write on " + e.resourceType() + " " + e.resourceId() : p.words());
        }
        return String.join(", ", words);
    }

    /** What makes refusals one late write's: the same process presenting the same stale token for the same actor. */
    private record Key(String process, String actor, Long presented, Long current) {}

    /**
     * Groups refusals into incidents (decision 0320): a refusal that is a {@link Part} joins the newest incident
     * of the same process, actor, presented token and current token when it comes at most {@link #SPAN} seqs after
     * that incident's last part and the incident has no such part yet; otherwise it opens an incident. Any other
     * refusal is an incident of its own. Seq orders them, never the writers' clocks.
     *
     * @param refusals REJECTED rows in any order
     * @return the incidents, newest first (by the seq of their lead)
     */
    public static List<RefusalIncident> group(List<JournalEntry> refusals) {
        List<JournalEntry> oldestFirst = new ArrayList<>(refusals);
        oldestFirst.sort((a, b) -> Long.compare(a.seq(), b.seq()));
        List<List<JournalEntry>> built = new ArrayList<>();
        Map<Key, List<JournalEntry>> open = new HashMap<>();
        for (JournalEntry e : oldestFirst) {
            Part part = Part.of(e);
            if (part == null || e.process() == null) {
                built.add(List.of(e));
                continue;
            }
            Key key = new Key(e.process().identity(), e.actor(), e.presentedToken(), e.currentToken());
            List<JournalEntry> incident = open.get(key);
            if (incident != null
                    && e.seq() - incident.get(incident.size() - 1).seq() <= SPAN
                    && incident.stream().noneMatch(p -> Part.of(p) == part)) {
                incident.add(e);
                continue;
            }
            incident = new ArrayList<>();
            incident.add(e);
            open.put(key, incident);
            built.add(incident);
        }
        List<RefusalIncident> out = new ArrayList<>(built.size());
        for (int i = built.size() - 1; i >= 0; i--) {
            out.add(new RefusalIncident(built.get(i)));
        }
        return out;
    }

    /** Whether {@code e} is one of this incident's refusals. */
    public boolean contains(JournalEntry e) {
        return parts.stream().anyMatch(p -> p.seq() == e.seq() && Objects.equals(p, e));
    }
}
