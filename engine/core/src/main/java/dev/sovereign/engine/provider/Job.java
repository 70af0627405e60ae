package dev.sovereign.engine.provider;

import java.nio.file.Path;
import java.util.Objects;

/**
 * One job handed to a {@link Provider}: which attempt of which assignment it runs under, the
 * workspace directory of this attempt to work in, the output directory whose contents outlive a
 * {@code temporary} workspace, and the {@link Cancellation} to honour. Immutable.
 *
 * @param workspace    this attempt's own folder {@code <dataDirectory>/runs/<assignment>/<attempt>/}, already
 *                     prepared (a real directory); no other attempt works in it
 * @param output       {@code <workspace>/output/}, already prepared; kept by every workspace policy when this
 *                     attempt commits, and never canonical when another one does
 * @param attemptToken the fencing token of the attempt; a provider may stamp outputs with it
 */
public record Job(
        String assignmentId,
        String attemptId,
        long attemptToken,
        String actorId,
        Path workspace,
        Path output,
        Cancellation cancellation) {
    public Job {
        Objects.requireNonNull(workspace, "workspace");
        Objects.requireNonNull(output, "output");
        Objects.requireNonNull(cancellation, "cancellation");
    }
}
