package dev.sovereign.engine.testing;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * The PostgreSQL ledger's token stripes as a test expects them (schema version 19, decision 0924): an actor's resources
 * mint from the counter row {@code sovereign_token_stripe(actor)} names, the first byte of the SHA-256 of the actor's
 * id (UTF-8) modulo 64, and each row steps by 64 from its own number. {@code PgTokenStripesTest} holds this to the server's.
 */
public final class Stripes {
    public static final int COUNT = 64;

    private Stripes() {}

    /** The stripe of {@code actor}. */
    public static int of(String actor) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(actor.getBytes(StandardCharsets.UTF_8));
            return (digest[0] & 0xFF) % COUNT;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The {@code n}-th token (1, 2, …) minted for {@code actor}'s resources on a ledger created at version 19 or later. */
    public static long nth(String actor, int n) {
        return of(actor) + (long) COUNT * n;
    }
}
