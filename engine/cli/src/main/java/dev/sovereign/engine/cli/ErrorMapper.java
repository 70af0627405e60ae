package dev.sovereign.engine.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.spi.tools.LedgerCopyRefusal;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import picocli.CommandLine;
import picocli.CommandLine.IExecutionExceptionHandler;
import picocli.CommandLine.IParameterExceptionHandler;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * The one place where failures become exit codes and words. Every failure is ONE sentence on stderr,
 * prefixed by what kind of failure it is, and never a stack trace unless {@code --debug}. With
 * {@code --json} the same failure is also one JSON object on stdout, so a script reading stdout
 * always gets one object per result.
 *
 * <pre>
 *   refused (actor_lease_held): ...        exit 1   a Refusal of a ledger category
 *   bad input (unknown_actor): ...         exit 2   a Refusal of an input category
 *   bad usage: ...                         exit 2   picocli could not parse the command line
 *   bad input: ...                         exit 2   the CLI found the input unusable
 *   storage error (busy): ...              exit 3   a StorageException
 *   unavailable: ...                       exit 3   e.g. the console jar is missing
 *   i/o error: ...                         exit 3   a file the engine needs (a run's workspace) failed
 *   interrupted: ...                       exit 130
 *   internal error: ...                    exit 70  a bug; --debug shows where
 * </pre>
 */
final class ErrorMapper implements IExecutionExceptionHandler, IParameterExceptionHandler {

    @Override
    public int handleParseException(ParameterException ex, String[] args) {
        CommandLine cl = ex.getCommandLine();
        List<String> given = Arrays.asList(args);
        boolean json = given.contains("--json") || root(cl).json();
        boolean debug = given.contains("--debug") || root(cl).debug();
        String sentence = usageSentence(ex);
        report(cl, json, "bad usage", sentence, JsonShapes.error("bad_usage", sentence), debug ? ex : null);
        return ExitCode.BAD_INPUT;
    }

    @Override
    public int handleExecutionException(Exception ex, CommandLine cl, ParseResult parseResult) {
        boolean json = root(cl).json();
        Throwable trace = root(cl).debug() ? ex : null;
        if (isInterruption(ex)) {
            String s = "The command was interrupted before it finished; what it had committed stays committed.";
            report(cl, json, "interrupted", s, JsonShapes.error("interrupted", s), trace);
            return ExitCode.INTERRUPTED;
        }
        if (ex instanceof Refusal r) {
            int code = ExitCode.forRefusal(r.category());
            String label = (code == ExitCode.REFUSED ? "refused" : "bad input") + " ("
                    + r.category().code() + ")";
            report(cl, json, label, sentence(r.getMessage()), JsonShapes.refusal(r), trace);
            // what went wrong after the refusal was decided (its journal row, the lease release): reported,
            // never in place of the refusal (decision 0109)
            r.warnings().forEach(w -> cl.getErr().println("warning: " + sentence(w)));
            cl.getErr().flush();
            return code;
        }
        if (ex instanceof LedgerCopyRefusal r) {
            String text = sentence(r.getMessage());
            ObjectNode o = JsonShapes.object();
            o.put("refused", true);
            o.put("category", r.category());
            o.put("message", text);
            report(cl, json, "refused (" + r.category() + ")", text, o, trace);
            return ExitCode.REFUSED;
        }
        if (ex instanceof StorageException s) {
            String label = "storage error (" + s.problem().name().toLowerCase(Locale.ROOT) + ")";
            String text = sentence(s.getMessage());
            report(cl, json, label, text, JsonShapes.storageError(s, text), trace);
            return ExitCode.STORAGE;
        }
        if (ex instanceof CliFailure f) {
            String text = sentence(f.getMessage());
            report(cl, json, f.kind().replace('_', ' '), text, JsonShapes.error(f.kind(), text), trace);
            return f.exitCode();
        }
        if (ex instanceof UncheckedIOException || ex instanceof IOException) {
            String text = sentence(ioSentence(ex));
            report(cl, json, "i/o error", text, JsonShapes.error("io", text), trace);
            return ExitCode.STORAGE;
        }
        String what = ex.getMessage() == null
                ? ex.getClass().getSimpleName()
                : ex.getClass().getSimpleName() + ": " + firstLine(ex.getMessage());
        String text = sentence("Something unexpected went wrong (" + what
                + "); this is a bug in Sovereign, so please rerun with --debug and report what it prints");
        report(cl, json, "internal error", text, JsonShapes.error("internal", text), trace);
        return ExitCode.INTERNAL;
    }

    private static void report(
            CommandLine cl, boolean json, String label, String sentence, ObjectNode asJson, Throwable trace) {
        if (json) {
            PrintWriter out = cl.getOut();
            out.println(JsonShapes.line(asJson));
            out.flush();
        }
        PrintWriter err = cl.getErr();
        err.println(label + ": " + sentence);
        if (trace != null) {
            // --debug: the whole trace, but exception messages may carry what was typed, secrets and all
            StringWriter t = new StringWriter();
            trace.printStackTrace(new PrintWriter(t));
            err.print(LedgerLocation.redactUrlsIn(t.toString()));
        }
        err.flush();
    }

    private static SovereignCommand root(CommandLine cl) {
        return (SovereignCommand) cl.getCommandSpec().root().userObject();
    }

    private static boolean isInterruption(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof InterruptedException) {
                return true;
            }
        }
        return false;
    }

    /** Picocli's message, made one sentence that says where to look next. */
    static String usageSentence(ParameterException ex) {
        CommandLine cl = ex.getCommandLine();
        String name = cl.getCommandSpec().qualifiedName();
        String help = "; see '" + name + " --help'";
        if (ex instanceof UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String first = u.getUnmatched().get(0);
            if (first.startsWith("-")) {
                return sentence("Unknown option '" + first + "' for '" + name + "'" + help);
            }
            if (!cl.getSubcommands().isEmpty()) {
                return sentence("Unknown command '" + first + "' for '" + name + "'" + help);
            }
            return sentence("Unexpected argument '" + first + "' for '" + name + "'" + help);
        }
        String message = firstLine(String.valueOf(ex.getMessage()));
        if (message.startsWith("Missing required subcommand")) {
            return sentence("'" + name + "' needs a command, one of: "
                    + String.join(", ", cl.getSubcommands().keySet()) + help);
        }
        if (ex instanceof MissingParameterException) {
            return sentence(message + help);
        }
        return sentence(message);
    }

    /**
     * A file-system failure in words: the engine's message (which names what it was doing), plus why,
     * when the cause says so more plainly than a bare path.
     */
    static String ioSentence(Exception ex) {
        String m = ex.getMessage() == null || ex.getMessage().isBlank()
                ? "A file operation failed"
                : firstLine(ex.getMessage());
        for (Throwable c = ex; c != null; c = c.getCause()) {
            if (c instanceof FileSystemException f) {
                String why = why(f);
                if (why != null && !m.contains(why)) {
                    m = m + " (" + why + ")";
                }
                break;
            }
        }
        return Character.toUpperCase(m.charAt(0)) + m.substring(1);
    }

    private static String why(FileSystemException f) {
        String file = f.getFile();
        if (f instanceof FileAlreadyExistsException) {
            return file + " exists and is not a directory";
        }
        if (f instanceof AccessDeniedException) {
            return "permission denied on " + file;
        }
        if (f instanceof NoSuchFileException) {
            return file + " does not exist";
        }
        if (f instanceof NotDirectoryException) {
            return file + " is not a directory";
        }
        return f.getReason();
    }

    /** Exactly one line, ending with a full stop. */
    static String sentence(String text) {
        // a sentence may quote what the user typed (picocli's "Unexpected argument '…'"): never a URL's secret
        String s = LedgerLocation.redactUrlsIn(String.valueOf(text))
                .replaceAll("\\s+", " ")
                .strip();
        if (s.isEmpty()) {
            return "No further detail is available.";
        }
        while (s.endsWith(".") || s.endsWith(";") || s.endsWith(":") || s.endsWith(",")) {
            s = s.substring(0, s.length() - 1);
        }
        return s + ".";
    }

    private static String firstLine(String text) {
        int nl = text.indexOf('\n');
        return (nl >= 0 ? text.substring(0, nl) : text).strip();
    }
}
