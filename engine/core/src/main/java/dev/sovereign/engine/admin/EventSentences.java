package dev.sovereign.engine.admin;

import dev.sovereign.engine.rules.LeaseRules;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;

/**
 * Turns journal events into one plain sentence each. For a {@code REJECTED} event the sentence says
 * who presented which token for what, which token was current instead and why, using the event that
 * granted the current token (or, when nothing is current, the last event that ended the grant).
 * Pure functions; thread-safe.
 */
public final class EventSentences {
    private final DateTimeFormatter time;

    public EventSentences(ZoneId zone) {
        this.time = DateTimeFormatter.ofPattern("HH:mm:ss", Locale.ROOT).withZone(zone);
    }

    /** The sentence for any event except a rejection. */
    public String describe(JournalEntry e) {
        return capitalised(describeLowerCase(e));
    }

    private String describeLowerCase(JournalEntry e) {
        String who = who(e.process());
        String res = resource(e);
        String token = e.token() == null ? "" : " with token " + e.token();
        switch (e.kind()) {
            case "LEASE_ACQUIRED":
                return who + " acquired " + res + token + ".";
            case "LEASE_RENEWED":
                // a release that keeps its lease until a time (decision 0116) is journalled as the renewal it writes
                String keptUntil = keptUntil(e.detail());
                return keptUntil != null
                        ? who + " released " + res + token + " but keeps it until " + keptUntil
                                + " (a minimum hold); nobody else can take it before then."
                        : who + " renewed " + res + token + ".";
            case "LEASE_RELEASED":
                return who + " released " + res + token + ".";
            case "LEASE_TAKEN_OVER":
                return who + " took over " + res + token + detailSuffix(e.detail());
            case "ATTEMPT_STARTED":
                return who + " started " + res + token + ".";
            case "ATTEMPT_DONE":
                return who + " finished " + res + token + ".";
            case "ATTEMPT_RECOVERED":
                return who + " recovered " + res + token + " as worker_lost; its outcome is unknown.";
            case "CLAIM_GRANTED":
                return who + " claimed " + res + token + ".";
            case "CLAIM_SWEPT":
                return who + " swept the expired claim of " + res + " back to NEW.";
            case "MESSAGE_DONE":
                return who + " completed " + res + token + ".";
            case "LEDGER_RESTORED":
                return who + " restored the ledger from a backup: " + String.valueOf(e.detail()) + ".";
            case "FENCE_BUMPED":
                return who + " bumped the fence: " + String.valueOf(e.detail()) + ".";
            case "LEDGER_WENT_BACKWARDS":
                return "The ledger went backwards: " + String.valueOf(e.detail()) + ".";
            case "PROCESS_STARTED":
                return "identity_claimed".equals(e.category()) && e.detail() != null
                        ? "Identity claimed with --process: " + e.detail() + "."
                        : who + " started" + detailSuffix(e.detail());
            // every kind of the journal in words: the fallback below read "message sent on message msg_…"
            case "ATTEMPT_SUPERSEDED":
                return who + " superseded " + res + token + detailSuffix(e.detail());
            case "ATTEMPT_STOLEN":
                return who + " stole " + res + token + detailSuffix(e.detail());
            case "ASSIGNMENT_CREATED":
                return who + " created " + res + detailSuffix(e.detail());
            case "ASSIGNMENT_RETRIED":
                return who + " retried " + res + detailSuffix(e.detail());
            case "ASSIGNMENT_ACKNOWLEDGED":
                return who + " acknowledged " + res + detailSuffix(e.detail());
            case "MESSAGE_SENT":
                return who + " sent " + res + detailSuffix(e.detail());
            case "MESSAGE_RETRIED":
                return who + " put " + res + " back for another try" + detailSuffix(e.detail());
            case "MESSAGE_DEAD":
                return who + " gave up on " + res + ": it is dead" + detailSuffix(e.detail());
            case "PROCESS_STOPPED":
                return who + " stopped " + res + detailSuffix(e.detail());
            default:
                return who + ": " + e.kind().toLowerCase(Locale.ROOT).replace('_', ' ') + " on " + res + token
                        + detailSuffix(e.detail());
        }
    }

    /**
     * The sentence for a rejection.
     *
     * @param grant the event that granted {@code currentToken} (same token, before the rejection), or null
     * @param ended when nothing was current: the last non-rejection event on the resource before it, or null
     */
    public String explainRejection(JournalEntry rejection, JournalEntry grant, JournalEntry ended) {
        return capitalised(explain(rejection, grant, ended));
    }

    private String explain(JournalEntry rejection, JournalEntry grant, JournalEntry ended) {
        String who = who(rejection.process());
        String res = resource(rejection);
        Long presented = rejection.presentedToken();
        Long current = rejection.currentToken();
        String category = rejection.category() == null ? "" : rejection.category();
        switch (category) {
            case "actor_lease_held":
                return who + " asked for " + res + ", but " + holder(grant, current)
                        + "; it must wait until the lease is released or expires.";
            case "message_claimed":
                return who + " tried to claim " + res + ", but " + holder(grant, current)
                        + "; it may claim it only after that claim expires.";
            case "execution_attempt_held":
                return who + " tried to start another attempt on " + res + ", but the attempt"
                        + (current == null ? "" : " with token " + current)
                        + (grant == null ? "" : " started by " + who(grant.process()) + " at " + at(grant))
                        + " is still live.";
            case "command_not_allowed":
                return who + " refused to run the shell command of " + res + ": no --allow-command pattern of that"
                        + " process matches it, so the assignment stays CREATED.";
            case "corrupt_lease_state":
                return who + " found the lease of " + res + " corrupt"
                        + (current == null ? "" : " (token " + current + ")")
                        + " and refused to use it; an operator must repair the ledger.";
            default:
                break;
        }
        if (presented != null) {
            String head = who + " presented token " + presented + " for " + res;
            if (current != null && current.equals(presented)) {
                return head + notTheHolder(rejection, grant, current);
            }
            if (current != null) {
                return head + ", but " + current + " is current" + (grant == null ? "." : ": " + because(grant) + ".");
            }
            return head + ", but no token is current" + (ended == null ? "." : ": " + endedBecause(ended) + ".");
        }
        return who + " was refused (" + category + ") on " + res
                + (current == null ? "" : "; token " + current + " is current") + ".";
    }

    /**
     * The rest of the sentence when the presented token IS the current one: the token was not wrong, the
     * presenter was — it is not the process the token was granted to (or no longer hosts what it names).
     */
    private String notTheHolder(JournalEntry rejection, JournalEntry grant, long current) {
        ProcessRef me = rejection.process();
        if (grant != null
                && grant.process() != null
                && (me == null || !grant.process().identity().equals(me.identity()))) {
            return "; token " + current + " is current, but it was granted to " + who(grant.process()) + " at "
                    + at(grant) + ", not to " + who(me) + ": only the process holding a token may write with it.";
        }
        if (grant == null) {
            return "; token " + current + " is current, but this process is not its holder (it was granted to another"
                    + " process): only the process holding a token may write with it.";
        }
        return "; token " + current + " is current and was granted to this process at " + at(grant)
                + ", but it no longer holds what the token fenced.";
    }

    private String holder(JournalEntry grant, Long current) {
        String token = current == null ? "" : " with token " + current;
        if (grant == null) {
            return "another process holds it" + token;
        }
        return who(grant.process()) + " holds it" + token + " since " + at(grant);
    }

    private String because(JournalEntry grant) {
        String by = who(grant.process());
        switch (grant.kind()) {
            case "LEASE_TAKEN_OVER":
                return "its lease was taken over by " + by + " at " + at(grant);
            case "LEASE_ACQUIRED":
                return by + " acquired the lease at " + at(grant);
            case "CLAIM_GRANTED":
                return by + " claimed it at " + at(grant);
            case "ATTEMPT_STARTED":
                return "a newer attempt by " + by + " started at " + at(grant);
            default:
                return by + " was granted it at " + at(grant);
        }
    }

    private String endedBecause(JournalEntry ended) {
        switch (ended.kind()) {
            case "LEASE_RELEASED":
                return "the lease was released at " + at(ended);
            case "CLAIM_SWEPT":
                return "its claim expired and was swept back to the queue at " + at(ended);
            case "ATTEMPT_RECOVERED":
                return "the supervisor recovered it as worker_lost at " + at(ended);
            case "ATTEMPT_SUPERSEDED":
                return "it was superseded at " + at(ended);
            case "ATTEMPT_STOLEN":
                return "an operator stole its fence at " + at(ended) + ", through " + who(ended.process())
                        + ", so attempt " + ended.resourceId() + " can no longer commit it";
            case "ATTEMPT_DONE":
            case "MESSAGE_DONE":
            case "MESSAGE_DEAD":
                return "it was already finished at " + at(ended);
            default:
                return "the last change was "
                        + ended.kind().toLowerCase(Locale.ROOT).replace('_', ' ') + " at " + at(ended);
        }
    }

    /** {@code HH:mm:ss} of an event in this formatter's zone. */
    public String at(JournalEntry e) {
        return time.format(Instant.ofEpochMilli(e.at()));
    }

    /**
     * What follows a refusal of a live lease that opened a contention window (decision 0019) when the same process was
     * refused again in that window: those refusals are counted, not journalled one by one, so the sentence says how
     * often and until when. Empty when it was refused once.
     */
    public String repeated(long refusals, long lastAt) {
        return repeated(refusals, time.format(Instant.ofEpochMilli(lastAt)));
    }

    /** {@link #repeated(long, long)} with the last time already written as its reader shows times. */
    public static String repeated(long refusals, String lastAt) {
        return refusals <= 1
                ? ""
                : " Refused " + refusals + " times in this ten-minute window, the last at " + lastAt
                        + " (the repeats are counted, not journalled).";
    }

    /** {@code sentence} without the count of repeats it was read with: a reader that follows the count adds its own. */
    public static String withoutRepeats(String sentence) {
        return sentence == null ? null : REPEATED.matcher(sentence).replaceFirst("");
    }

    private static final java.util.regex.Pattern REPEATED = java.util.regex.Pattern.compile(
            " Refused \\d+ times in this ten-minute window, the last at [^(]*\\(the repeats are counted, not"
                    + " journalled\\)\\.$");

    /**
     * Sentences start with a capital even when they start with a lower-case process label, but never change an
     * id ({@code proc_bob}, {@code asg_…}): a word with an underscore is written as the ledger has it.
     */
    public static String capitalised(String s) {
        if (s.isEmpty()) {
            return s;
        }
        int space = s.indexOf(' ');
        String first = space < 0 ? s : s.substring(0, space);
        return first.indexOf('_') >= 0 ? s : Character.toUpperCase(s.charAt(0)) + s.substring(1);
    }

    private static String who(ProcessRef p) {
        return p == null ? "An unknown process" : p.displayName();
    }

    private static String resource(JournalEntry e) {
        if (e.resourceType() == null) {
            return "an unnamed resource";
        }
        return e.resourceType() + " " + e.resourceId();
    }

    /** The time a release kept its lease until ({@code HH:mm:ss}), or null for a plain renewal. */
    private String keptUntil(String detail) {
        if (detail == null || !detail.startsWith(LeaseRules.KEPT_UNTIL)) {
            return null;
        }
        try {
            return time.format(Instant.parse(detail.substring(LeaseRules.KEPT_UNTIL.length())));
        } catch (DateTimeParseException notOurs) {
            return null; // a row not written by the engine: told as the renewal it is
        }
    }

    private static String detailSuffix(String detail) {
        return detail == null || detail.isBlank() ? "." : " (" + detail + ").";
    }
}
