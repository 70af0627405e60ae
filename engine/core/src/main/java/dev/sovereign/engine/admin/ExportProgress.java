package dev.sovereign.engine.admin;

/** Told how far an export has come; called on the exporting thread. */
@FunctionalInterface
public interface ExportProgress {
    ExportProgress NONE = (done, total) -> {};

    /** {@code done} of {@code total} events written so far ({@code total} may grow while exporting). */
    void progress(long done, long total);
}
