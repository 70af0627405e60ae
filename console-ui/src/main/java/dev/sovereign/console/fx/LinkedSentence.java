package dev.sovereign.console.fx;

import dev.sovereign.console.ledger.Links;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.geometry.Insets;
import javafx.scene.Node;
import javafx.scene.control.Hyperlink;
import javafx.scene.layout.Region;
import javafx.scene.text.Text;
import javafx.scene.text.TextFlow;

/**
 * A sentence whose ids are links (issue 17, item 7: "every id in every table and sentence links there"): a
 * {@link TextFlow} of {@link Text} pieces and {@link Hyperlink}s, each link going through {@link Links}.
 * <p>
 * Ids are found by the prefixes the engine mints — {@code proc_} (a process), {@code asg_} (an assignment),
 * {@code att_} (an attempt), {@code msg_} (a message) — also in their short form ending in {@code …}
 * ({@code proc_3f2a1b9c…}; {@link Links} completes it). Actor names are never guessed from free text: a view
 * says which names its row's own fields make actors ({@link #setActors}), and only those are linked.
 * <p>
 * Decision 0415's property holds: the pieces are rebuilt only when the sentence's words (or its actors)
 * change, never on a tick that leaves them as they were. Each link's id is {@code <id>-link-<target>}.
 */
public final class LinkedSentence extends TextFlow {
    /**
     * The ids the engine mints, in full or shortened with an ellipsis; not a segment of a file path (a run's
     * output folder names its assignment and attempt: that is a place on disk, not a link).
     */
    public static final Pattern IDS =
            Pattern.compile("(?<![A-Za-z0-9_/\\\\])(proc|asg|att|msg)_[A-Za-z0-9_-]+(?:\u2026|(?![A-Za-z0-9_/\\\\-]))");

    private final StringProperty text = new SimpleStringProperty(this, "text", "");
    private Supplier<Links> links = () -> Links.NONE;
    private Set<String> actors = Set.of();
    private String shownText;
    private Set<String> shownActors = Set.of();
    private int builds;

    public LinkedSentence(String id) {
        setId(id);
        getStyleClass().add("linked-sentence");
        text.addListener((obs, o, n) -> rebuild());
    }

    /** Where the links go. */
    public LinkedSentence links(Links l) {
        return links(() -> l);
    }

    /** Where the links go, asked at the click (a view whose links are set after it is built). */
    public LinkedSentence links(Supplier<Links> l) {
        this.links = Objects.requireNonNull(l);
        return this;
    }

    public StringProperty textProperty() {
        return text;
    }

    public String getText() {
        return text.get();
    }

    public void setText(String s) {
        text.set(s);
    }

    /** The actor names the row's own fields name (linked wherever they stand as a whole word); none by default. */
    public void setActors(Collection<String> names) {
        Set<String> s = new LinkedHashSet<>();
        if (names != null) {
            for (String n : names) {
                if (n != null && !n.isBlank()) {
                    s.add(n);
                }
            }
        }
        actors = Set.copyOf(s);
        rebuild();
    }

    /** How many times the pieces were built (a test checks a tick that changes nothing builds nothing). */
    public int builds() {
        return builds;
    }

    private void rebuild() {
        String s = text.get() == null ? "" : text.get();
        if (s.equals(shownText) && actors.equals(shownActors)) {
            return;
        }
        shownText = s;
        shownActors = actors;
        builds++;
        getChildren().setAll(pieces(s));
    }

    private List<Node> pieces(String s) {
        List<Node> out = new ArrayList<>();
        List<int[]> spans = new ArrayList<>(); // start, end, kind (0 id, 1 actor)
        Matcher m = IDS.matcher(s);
        while (m.find()) {
            spans.add(new int[] {m.start(), m.end(), 0});
        }
        for (String actor : actors) {
            int from = 0;
            while ((from = s.indexOf(actor, from)) >= 0) {
                int start = from;
                int end = from + actor.length();
                if (wordEdge(s, start - 1)
                        && wordEdge(s, end)
                        && !insideProcessLabel(s, start, end)
                        && spans.stream().noneMatch(x -> x[0] < end && start < x[1])) {
                    spans.add(new int[] {start, end, 1});
                }
                from = end;
            }
        }
        spans.sort((a, b) -> Integer.compare(a[0], b[0]));
        int at = 0;
        for (int[] span : spans) {
            if (span[0] < at) {
                continue;
            }
            if (span[0] > at) {
                out.add(text(s.substring(at, span[0])));
            }
            String word = s.substring(span[0], span[1]);
            out.add(link(word, span[2] == 1));
            at = span[1];
        }
        if (at < s.length()) {
            out.add(text(s.substring(at)));
        }
        return out;
    }

    /** The rest of a process's label up to its {@code (proc_…)}: words, numbers and parentheses, no punctuation. */
    private static final Pattern LABEL_REST = Pattern.compile("[ A-Za-z0-9()#-]*?\\((?:proc_)");

    /**
     * Whether the word at {@code [start, end)} is part of a process's label ({@code operator worker 1 (restart 1)
     * (proc_3f2a1b9c…)}): then it names the process, not an actor (issue 31). A word right after "actor " is the
     * actor whatever follows it.
     */
    static boolean insideProcessLabel(String s, int start, int end) {
        if (start >= 6 && s.regionMatches(true, start - 6, "actor ", 0, 6)) {
            return false;
        }
        return LABEL_REST.matcher(s).region(end, s.length()).lookingAt();
    }

    private static boolean wordEdge(String s, int i) {
        if (i < 0 || i >= s.length()) {
            return true;
        }
        char c = s.charAt(i);
        return !(Character.isLetterOrDigit(c) || c == '_' || c == '-' || c == '.');
    }

    private static Text text(String s) {
        Text t = new Text(s);
        t.getStyleClass().add("sentence-text");
        return t;
    }

    private Hyperlink link(String word, boolean actor) {
        Hyperlink h = new Hyperlink(word);
        h.getStyleClass().add("sentence-link");
        h.setPadding(Insets.EMPTY);
        h.setFocusTraversable(false);
        h.setMinWidth(Region.USE_PREF_SIZE);
        h.setId(getId() + "-link-" + word);
        h.setOnAction(e -> {
            h.setVisited(false);
            open(links.get(), word, actor);
        });
        return h;
    }

    /** Opens what {@code word} names: an actor, or an id by its prefix. */
    static void open(Links to, String word, boolean actor) {
        if (actor) {
            to.openActor(word);
        } else if (word.startsWith("proc_")) {
            to.openProcess(word);
        } else if (word.startsWith("asg_")) {
            to.openAssignment(word);
        } else if (word.startsWith("att_")) {
            to.openAttempt(word);
        } else if (word.startsWith("msg_")) {
            to.openMessage(word);
        }
    }
}
