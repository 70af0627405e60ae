package dev.sovereign.engine.rules;

import static dev.sovereign.engine.base.RefusalCategory.ACTOR_EXISTS;
import static dev.sovereign.engine.base.RefusalCategory.UNKNOWN_ACTOR;

import dev.sovereign.engine.base.Refusal;

/** The actor registry's refusals. */
public final class ActorRules {
    private ActorRules() {}

    /** {@code unknown_actor}: a write or read named an actor the registry does not have. */
    public static Refusal unknown(String id) {
        if (!Arguments.isValidId(id)) {
            // no 'actor add' to suggest: that id could never be added (1 to 200 printable characters)
            return Refusal.of(
                            UNKNOWN_ACTOR,
                            "There is no actor named " + Arguments.shown(id) + ", and there cannot"
                                    + " be: an actor id is 1 to 200 printable characters; list the actors with 'sovereign actor"
                                    + " list'.")
                    .resource("actor", id)
                    .build();
        }
        return Refusal.of(
                        UNKNOWN_ACTOR,
                        "There is no actor named '" + id + "'; add it with 'sovereign actor add " + id + "'.")
                .resource("actor", id)
                .build();
    }

    /** {@code actor_exists}: an add named an actor that is already registered. */
    public static Refusal exists(String id) {
        return Refusal.of(ACTOR_EXISTS, "Actor " + id + " already exists.")
                .resource("actor", id)
                .build();
    }
}
