package dev.sovereign.engine.base;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * An expected "no" from the engine: the operation was refused and nothing it would have written
 * was written. Carries a closed {@link RefusalCategory}, a one-sentence message saying what
 * happened, why and what to do next, and where relevant the resource and the presented and
 * current tokens.
 *
 * <p>Refusals are values of the protocol, not bugs: a lost race, a stale token, an unknown actor.
 * Storage failures are {@link StorageException}s instead. Immutable and thread-safe.
 */
public final class Refusal extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final RefusalCategory category;
    private final String resourceType;
    private final String resourceId;
    private final Long presentedToken;
    private final Long currentToken;
    private final String actorId;
    private final List<String> warnings;

    private Refusal(Builder b) {
        super(b.message, null, false, false);
        this.category = b.category;
        this.resourceType = b.resourceType;
        this.resourceId = b.resourceId;
        this.presentedToken = b.presentedToken;
        this.currentToken = b.currentToken;
        this.actorId = b.actorId;
        this.warnings = List.copyOf(b.warnings);
    }

    public static Builder of(RefusalCategory category, String message) {
        return new Builder(category, message);
    }

    public RefusalCategory category() {
        return category;
    }

    /** {@code actor}, {@code attempt}, {@code assignment}, {@code message} or {@code process}; may be null. */
    public String resourceType() {
        return resourceType;
    }

    public String resourceId() {
        return resourceId;
    }

    /** The actor the refused operation concerned, or null. */
    public String actorId() {
        return actorId;
    }

    /** The token the caller presented, or null when none was involved. */
    public Long presentedToken() {
        return presentedToken;
    }

    /** The token that is current in the ledger, or null when there is none. */
    public Long currentToken() {
        return currentToken;
    }

    /**
     * Problems met after the refusal was decided that do not change it: the {@code REJECTED} journal row
     * could not be written (busy past the bound), the run's lease could not be released, ... The refusal
     * stands regardless (docs/decisions/0109). Empty for most refusals.
     */
    public List<String> warnings() {
        return warnings;
    }

    /** This refusal with one more warning (a copy: refusals are immutable). */
    public Refusal withWarning(String warning) {
        Builder b = new Builder(category, getMessage())
                .resource(resourceType, resourceId)
                .presented(presentedToken)
                .current(currentToken)
                .actor(actorId);
        b.warnings.addAll(warnings);
        b.warnings.add(Objects.requireNonNull(warning, "warning"));
        return b.build();
    }

    /** Builds a refusal; {@link #build()} returns it so callers can {@code throw} it. */
    public static final class Builder {
        private final RefusalCategory category;
        private final String message;
        private String resourceType;
        private String resourceId;
        private Long presentedToken;
        private Long currentToken;
        private String actorId;
        private final List<String> warnings = new ArrayList<>();

        private Builder(RefusalCategory category, String message) {
            this.category = Objects.requireNonNull(category, "category");
            this.message = Objects.requireNonNull(message, "message");
        }

        public Builder resource(String type, String id) {
            this.resourceType = type;
            this.resourceId = id;
            return this;
        }

        public Builder presented(Long token) {
            this.presentedToken = token;
            return this;
        }

        public Builder current(Long token) {
            this.currentToken = token;
            return this;
        }

        public Builder actor(String actorId) {
            this.actorId = actorId;
            return this;
        }

        public Refusal build() {
            return new Refusal(this);
        }
    }
}
