package dev.sovereign.console.fx;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import org.junit.jupiter.api.Test;

/** Which words of a sentence {@link LinkedSentence} makes links: the engine's ids, never a path's segments. */
class LinkedSentenceIdsTest {
    private static List<String> ids(String s) {
        List<String> out = new ArrayList<>();
        Matcher m = LinkedSentence.IDS.matcher(s);
        while (m.find()) {
            out.add(m.group());
        }
        return out;
    }

    @Test
    void findsEveryKindOfIdAlsoShortAndNotInsidePathsOrOtherWords() {
        assertThat(ids("Retried asg_0a1b as asg_9f8e: a new assignment for planner."))
                .containsExactly("asg_0a1b", "asg_9f8e");
        assertThat(ids("Worker 7101 (proc_3f2a1b9c\u2026) presented token 1 for attempt att_77, message msg_5-x."))
                .containsExactly("proc_3f2a1b9c\u2026", "att_77", "msg_5-x");
        assertThat(ids("Output folder: /tmp/data/runs/asg_198140/att_566e51/output"))
                .isEmpty();
        assertThat(ids("C:\\data\\runs\\asg_1\\out")).isEmpty();
        assertThat(ids("myasg_12 and xproc_3 are not ids; proc_ alone neither")).isEmpty();
    }
}
