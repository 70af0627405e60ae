package dev.sovereign.engine.attack.standing;

import java.util.HexFormat;

/** A cell read back from a ledger, written again as an SQL literal of the same storage type. */
final class Literals {
    private Literals() {}

    static String of(Dialect d, Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof Boolean b) {
            return d.bool(b);
        }
        if (v instanceof Number n) {
            return n.toString();
        }
        if (v instanceof byte[] bytes) {
            return d == Dialect.SQLITE
                    ? "x'" + HexFormat.of().formatHex(bytes) + "'"
                    : "'\\x" + HexFormat.of().formatHex(bytes) + "'::bytea";
        }
        return "'" + v.toString().replace("'", "''") + "'";
    }
}
