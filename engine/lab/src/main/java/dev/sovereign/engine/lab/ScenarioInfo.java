package dev.sovereign.engine.lab;

import java.util.List;
import java.util.Objects;

/**
 * What a teaching scenario is, before it runs: its name (the CLI argument), a title, a short summary
 * of what it shows, and the steps of its narrative in order (the console lists them and ticks each as
 * it happens). Immutable.
 *
 * @param name                 the stable name, e.g. {@code gc-pause}
 * @param title                one line a trainer can read out
 * @param summary              what the audience sees and why it matters, in two or three sentences
 * @param steps                the narrative's step titles, in order
 * @param faultSwitchApplies   whether the scenario relies on the terminal fence, so that running it
 *                             with the fence switched off ({@code --break-fence}) must end
 *                             {@link Verdict#VIOLATED}
 */
public record ScenarioInfo(String name, String title, String summary, List<String> steps, boolean faultSwitchApplies) {
    public ScenarioInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(title, "title");
        Objects.requireNonNull(summary, "summary");
        steps = List.copyOf(steps);
    }
}
