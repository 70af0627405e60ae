package dev.sovereign.console.shell;

import dev.sovereign.engine.base.LedgerLocation;
import java.util.HashMap;
import java.util.Map;

/**
 * The passwords this console knows for a server it is asked to open without one (decision 0423): the one typed when
 * the same server was opened earlier in this session, else {@code $SOVEREIGN_DB}'s when that names the same server
 * with one. A recent entry is stored without its password, so this is how it reopens. Never written anywhere.
 * {@link LedgerAttachment}'s own; UI-thread confined.
 */
final class SessionSecrets {
    /** The servers opened in this session with their secrets, by their URL without them. */
    private final Map<LedgerLocation, LedgerLocation> thisSession = new HashMap<>();

    /** {@code location} with the password this session or {@code $SOVEREIGN_DB} knows for it, if it has none. */
    LedgerLocation withKnownSecrets(LedgerLocation location) {
        if (location.isFile() || location.hasSecrets()) {
            return location;
        }
        LedgerLocation known = thisSession.get(location);
        if (known != null) {
            return known;
        }
        String env = System.getenv("SOVEREIGN_DB");
        if (env != null && LedgerLocation.looksLikeUrl(env)) {
            try {
                LedgerLocation fromEnv = LedgerLocation.parse(env);
                if (fromEnv.withoutSecrets().equals(location)) {
                    return fromEnv;
                }
            } catch (IllegalArgumentException ignored) {
                // not a usable URL: the location as it is
            }
        }
        return location;
    }

    /** Remembers a server {@code opened} with its secrets, for the rest of this session; a file is not kept. */
    void opened(LedgerLocation opened) {
        if (!opened.isFile()) {
            thisSession.put(opened.withoutSecrets(), opened);
        }
    }

    /** {@code location} with the secrets it was opened with in this session, or as it is. */
    LedgerLocation asOpenedThisSession(LedgerLocation location) {
        return thisSession.getOrDefault(location.withoutSecrets(), location);
    }
}
