package dev.sovereign.engine.testing;

import dev.sovereign.engine.provider.Job;
import dev.sovereign.engine.provider.Provider;
import dev.sovereign.engine.provider.ProviderResult;
import java.time.Duration;

/**
 * Test provider kind {@code announce:ms=N}: prints {@code PROVIDER_STARTED <attempt> <token>} on stdout
 * (so a parent test knows the child is inside the provider), then waits N ms or until cancelled.
 */
public final class AnnounceProvider implements Provider {
    public static final String KIND = "announce";
    private final long millis;

    private AnnounceProvider(long millis) {
        this.millis = millis;
    }

    public static AnnounceProvider parse(String argument) {
        if (!argument.startsWith("ms=")) {
            throw new IllegalArgumentException("expected ms=N");
        }
        return new AnnounceProvider(Long.parseLong(argument.substring(3)));
    }

    @Override
    public ProviderResult run(Job job) throws InterruptedException {
        System.out.println("PROVIDER_STARTED " + job.attemptId() + " " + job.attemptToken());
        System.out.flush();
        if (job.cancellation().await(Duration.ofMillis(millis))) {
            System.out.println(
                    "PROVIDER_CANCELLED " + job.cancellation().reason().orElse(""));
            System.out.flush();
            return ProviderResult.cancelled(job.cancellation().reason().orElse("cancelled"));
        }
        return ProviderResult.completed("announced and waited " + millis + " ms");
    }
}
