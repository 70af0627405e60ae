package dev.sovereign.engine.provider;

/**
 * Runs one job in a workspace and reports {@code completed}, {@code blocked} or {@code failed}.
 *
 * <p>Contract: a provider works only inside {@link Job#workspace()}, honours {@link Job#cancellation()}
 * promptly (the engine cancels it, and interrupts its thread, as soon as the lease or attempt it runs
 * under is lost), and never decides canonical state: its result becomes canonical only if the
 * engine's fenced terminal write commits. A provider whose grant was lost may still finish and write
 * files — fencing governs the ledger, not the operating system.
 *
 * <p>An exception thrown by {@link #run} is recorded as {@code failed} ({@code provider_error});
 * an {@link InterruptedException} after cancellation as {@code failed} ({@code cancelled}).
 * Each call runs on a fresh thread owned by the engine; an instance may be called for several jobs.
 */
@FunctionalInterface
public interface Provider {
    ProviderResult run(Job job) throws Exception;
}
