package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.Engine;
import dev.sovereign.engine.admin.ConnectionSecurity;
import dev.sovereign.engine.admin.LedgerSummary;
import dev.sovereign.engine.base.LedgerLocation;
import java.nio.file.Files;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine.Command;

/** {@code sovereign init}: create the database, or migrate an older one to this code's schema. */
@Command(name = "init", description = "Create the database, or migrate it to this version's schema.")
final class InitCommand extends EngineCommand {
    private boolean existed;

    @Override
    protected boolean createsDatabase() {
        return true;
    }

    @Override
    protected void beforeOpen(LedgerLocation database) {
        existed = database.file().map(Files::exists).orElse(true); // a server database: created by its operator
    }

    @Override
    protected int run(Engine engine, Output out) {
        LedgerSummary s = engine.summary();
        if (out.json()) {
            ObjectNode o = JsonShapes.object();
            o.put("database", s.location().toString());
            o.put("created", !existed);
            o.put("schema_version", s.schemaVersion());
            out.emit(o);
        } else {
            out.line(
                    (existed ? "Ready: " : "Created ") + s.location() + " (schema version " + s.schemaVersion() + ").");
        }
        unverifiedWarning(s.location(), s.connection()).ifPresent(w -> {
            spec.commandLine().getErr().println("warning: " + w);
            spec.commandLine().getErr().flush();
        });
        return ExitCode.OK;
    }

    /**
     * Decision 0906: the ledger is set up once, by its owner, with the URL every host will copy; if that URL
     * reaches a server on another machine without {@code sslmode=verify-full}, say so then, once, on stderr. A
     * loopback server (localhost, 127.0.0.0/8, ::1) and a file need no TLS.
     */
    static Optional<String> unverifiedWarning(LedgerLocation location, ConnectionSecurity cs) {
        if (cs.kind() == ConnectionSecurity.Kind.LOCAL_FILE
                || cs.verification() == ConnectionSecurity.Verification.CERTIFICATE_AND_HOST
                || cs.verification() == ConnectionSecurity.Verification.CUSTOM_FACTORY
                || isLoopback(location)) {
            return Optional.empty();
        }
        return Optional.of("the connection to this server is " + cs.describe() + "; give every host the URL"
                + " with sslmode=verify-full&sslrootcert=<the server's CA file> (docs/postgres.md, TLS).");
    }

    private static boolean isLoopback(LedgerLocation location) {
        Matcher m = Pattern.compile("(?i)^jdbc:[a-z0-9]+://([^/?]*)").matcher(location.text());
        if (!m.find()) {
            return false;
        }
        String hosts = m.group(1).substring(m.group(1).lastIndexOf('@') + 1);
        for (String hostPort : hosts.split(",")) {
            String host = hostPort.startsWith("[")
                    ? hostPort.substring(0, hostPort.indexOf(']') + 1)
                    : hostPort.replaceFirst(":\\d*$", "");
            if (!(host.isEmpty()
                    || host.equalsIgnoreCase("localhost")
                    || host.startsWith("127.")
                    || host.equals("[::1]"))) {
                return false;
            }
        }
        return true;
    }
}
