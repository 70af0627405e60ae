package dev.sovereign.engine.cli;

import dev.sovereign.engine.run.Assignment;
import dev.sovereign.engine.run.Attempt;
import dev.sovereign.engine.run.Receipt;
import dev.sovereign.engine.run.RunResult;
import java.util.ArrayList;
import java.util.List;

/** How the assignment commands print assignments, runs and attempts. Stateless. */
final class AssignmentOutput {
    private AssignmentOutput() {}

    /** One assignment: a headline and its fields (then {@code hint}, if any), or its JSON object. */
    static void print(Output out, String headline, AssignmentFacts f, String hint) {
        if (out.json()) {
            out.emit(JsonShapes.assignment(f));
            return;
        }
        out.fields(headline, fields(out, f));
        if (hint != null) {
            out.line(hint);
        }
    }

    /** A committed run: the assignment, the attempt that wrote it, its receipt and where the files are. */
    static void printRun(Output out, AssignmentFacts f, RunResult r) {
        if (out.json()) {
            out.emit(JsonShapes.run(f, r));
            return;
        }
        Attempt a = r.attempt();
        List<String[]> fields = new ArrayList<>();
        fields.add(new String[] {"assignment", f.assignment().id()});
        fields.add(new String[] {"actor", f.assignment().actorId()});
        fields.add(new String[] {"attempt", a.id() + " (token " + a.token() + ", lease token " + a.leaseToken() + ")"});
        fields.add(new String[] {"process", a.processIdentity()});
        addReceipt(fields, r.receipt());
        fields.add(
                new String[] {"workspace", r.workspace() + " (" + f.assignment().workspacePolicy() + ")"});
        fields.add(new String[] {"output", String.valueOf(r.outputDirectory())});
        fields.add(new String[] {
            "receipt file", r.receiptFile() == null ? "-" : r.receiptFile().toString()
        });
        out.fields("Run committed: " + r.assignment().state() + ".", fields);
        // the run's warnings go to stderr, one line each (RunCommand; decision 0109)
    }

    /** An attempt whose fence an operator stole. */
    static void printStolen(Output out, Attempt a) {
        if (out.json()) {
            out.emit(JsonShapes.attempt(a));
            return;
        }
        out.fields(
                "Fence stolen: attempt " + a.id() + " can no longer commit assignment " + a.assignmentId() + ".",
                List.of(
                        new String[] {"assignment", a.assignmentId()},
                        new String[] {"attempt", a.id()},
                        new String[] {"token", Long.toString(a.token())},
                        new String[] {"process", a.processIdentity()},
                        new String[] {"expires", out.times().at(a.expiresAt())}));
        out.line("The assignment stays RUNNING until the attempt expires; then 'sovereign supervisor --once'"
                + " recovers it as FAILED (worker_lost).");
    }

    private static List<String[]> fields(Output out, AssignmentFacts f) {
        Assignment a = f.assignment();
        List<String[]> fields = new ArrayList<>();
        fields.add(new String[] {"assignment", a.id()});
        fields.add(new String[] {"actor", a.actorId()});
        fields.add(new String[] {"state", a.state().name()});
        fields.add(new String[] {"provider", a.providerSpec()});
        fields.add(new String[] {"workspace policy", a.workspacePolicy()});
        if (a.currentAttempt() != null) {
            fields.add(
                    new String[] {"current attempt", a.currentAttempt() + " (token " + f.currentAttemptToken() + ")"});
        }
        fields.add(new String[] {
            "attempts", f.attempts() == null ? "-" : f.attempts().toString()
        });
        if (a.retryOf() != null) {
            fields.add(new String[] {"retry of", a.retryOf()});
        }
        if (f.retriedBy() != null) {
            fields.add(new String[] {"retried by", f.retriedBy()});
        }
        if (a.acknowledgedAt() != null) {
            fields.add(new String[] {"acknowledged", out.times().at(a.acknowledgedAt())});
        }
        if (f.receipt() != null) {
            addReceipt(fields, f.receipt());
            fields.add(new String[] {"output", String.valueOf(f.outputDir())});
        }
        return fields;
    }

    private static void addReceipt(List<String[]> fields, Receipt r) {
        fields.add(new String[] {
            "receipt",
            "#" + r.id() + " " + r.status().code()
                    + (r.failureCategory() == null ? "" : " (" + r.failureCategory() + ")")
                    + (r.outcomeKnown() ? "" : ", outcome unknown") + ", attempt token " + r.attemptToken()
        });
        if (r.summary() != null && !r.summary().isBlank()) {
            fields.add(new String[] {"summary", r.summary()});
        }
    }

    /** Assignments as a table: state, current attempt token, receipt, worker_lost, and what is left to do. */
    static Table table(List<AssignmentFacts> rows, Times t) {
        Table table = new Table(
                "ASSIGNMENT",
                "ACTOR",
                "STATE",
                "ATTEMPT TOKEN",
                "RECEIPT",
                "WORKER LOST",
                "UPDATED",
                "PROVIDER",
                "NOTE");
        for (AssignmentFacts f : rows) {
            Assignment a = f.assignment();
            table.row(
                    a.id(),
                    a.actorId(),
                    a.state().name(),
                    f.currentAttemptToken(),
                    f.receiptText(),
                    f.isWorkerLost() ? "yes" : null,
                    t.at(a.updatedAt()),
                    a.providerSpec(),
                    note(f));
        }
        return table;
    }

    private static String note(AssignmentFacts f) {
        List<String> notes = new ArrayList<>();
        if (f.assignment().retryOf() != null) {
            notes.add("retry of " + f.assignment().retryOf());
        }
        if (f.retriedBy() != null) {
            notes.add("retried as " + f.retriedBy());
        }
        if (f.assignment().acknowledgedAt() != null) {
            notes.add("acknowledged");
        }
        if (f.needsOperator()) {
            notes.add("needs an operator: retry or acknowledge");
        }
        return notes.isEmpty() ? null : String.join("; ", notes);
    }
}
