package dev.sovereign.engine.admin;

import java.util.Objects;

/**
 * How this engine reaches its ledger, for an operator to judge who else could read or alter the traffic: a
 * local file (no network at all), a server connection without encryption, or one with TLS, and then whether
 * the client checked the server's certificate and its host name ({@code sslmode=verify-full}, decision 0906).
 * Encryption is the server's account of this very session ({@code pg_stat_ssl} for the engine's own backend),
 * verification is what the driver was told to check. Immutable and thread-safe.
 *
 * @param kind         a local file, a plain connection or a TLS one
 * @param protocol     the TLS version, e.g. {@code TLSv1.3}; null unless {@link Kind#TLS}
 * @param cipher       the TLS cipher suite; null unless {@link Kind#TLS}
 * @param sslmode      the driver's {@code sslmode} as it applied it ({@code disable}, {@code prefer},
 *                     {@code require}, {@code verify-ca}, {@code verify-full}); null for a file
 * @param verification what the client checked of the server's certificate
 */
public record ConnectionSecurity(Kind kind, String protocol, String cipher, String sslmode, Verification verification) {
    /** A SQLite ledger: a file on this machine, no connection for anyone to listen to. */
    public static final ConnectionSecurity LOCAL_FILE =
            new ConnectionSecurity(Kind.LOCAL_FILE, null, null, null, Verification.NONE);

    public enum Kind {
        /** A file on this machine. */
        LOCAL_FILE,
        /** A network connection whose traffic anyone on the path can read and alter. */
        NOT_ENCRYPTED,
        /** A TLS connection. */
        TLS
    }

    public enum Verification {
        /** Nothing checked: whoever answers at the address may pose as the server. */
        NONE,
        /** The certificate chains to a trusted CA, but its host name was not compared ({@code verify-ca}). */
        CERTIFICATE,
        /** The certificate chains to a trusted CA and names the host connected to ({@code verify-full}). */
        CERTIFICATE_AND_HOST,
        /** A custom {@code sslfactory} decided; what it checks is its own business. */
        CUSTOM_FACTORY
    }

    public ConnectionSecurity {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(verification, "verification");
        if (kind != Kind.TLS && verification != Verification.NONE) {
            throw new IllegalArgumentException("a connection without TLS verifies no certificate");
        }
    }

    /** Whether the traffic is encrypted (a local file has no traffic, so: false). */
    public boolean encrypted() {
        return kind == Kind.TLS;
    }

    /**
     * One line for a status field, e.g. {@code TLSv1.3, certificate verified (verify-full)}, {@code not encrypted
     * (sslmode=disable)} or {@code local file}.
     */
    public String describe() {
        return switch (kind) {
            case LOCAL_FILE -> "local file";
            case NOT_ENCRYPTED ->
                "not encrypted (sslmode=" + sslmode + "): anyone on the network path can read and" + " alter it";
            case TLS ->
                (protocol == null ? "TLS" : protocol) + ", "
                        + switch (verification) {
                            case CERTIFICATE_AND_HOST -> "certificate verified (" + sslmode + ")";
                            case CERTIFICATE -> "certificate verified but not its host name (" + sslmode + ")";
                            case CUSTOM_FACTORY -> "certificate checked by a custom sslfactory (" + sslmode + ")";
                            case NONE ->
                                "certificate not verified (sslmode=" + sslmode + "): whoever answers at that address"
                                        + " can pose as the server";
                        };
        };
    }

    /**
     * A few words for a status bar, the long form ({@link #describe()}) in its tooltip: {@code local file},
     * {@code not encrypted}, {@code TLSv1.3, verified} (certificate and host), {@code TLSv1.3, host not verified},
     * {@code TLSv1.3, custom check} or {@code TLSv1.3, not verified}.
     */
    public String brief() {
        return switch (kind) {
            case LOCAL_FILE -> "local file";
            case NOT_ENCRYPTED -> "not encrypted";
            case TLS ->
                (protocol == null ? "TLS" : protocol)
                        + switch (verification) {
                            case CERTIFICATE_AND_HOST -> ", verified";
                            case CERTIFICATE -> ", host not verified";
                            case CUSTOM_FACTORY -> ", custom check";
                            case NONE -> ", not verified";
                        };
        };
    }

    @Override
    public String toString() {
        return describe();
    }
}
