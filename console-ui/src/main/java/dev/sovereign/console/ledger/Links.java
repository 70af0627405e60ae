package dev.sovereign.console.ledger;

/** Where a link to a thing goes: the page that shows it, with it selected or found. */
public interface Links {
    void openAssignment(String id);

    void openActor(String actor);

    void openProcess(String identity);

    /** A message: the Mailbox page, found with the search. */
    default void openMessage(String id) {}

    /** An attempt: its assignment on the Runs page. */
    default void openAttempt(String id) {}

    /** Journal rows of some kinds in a time span: the Journal page, filtered to them (a point on the Trends page). */
    default void openJournal(JournalQuery rows) {}

    /** Links that go nowhere (a view shown on its own, in tests). */
    Links NONE = new Links() {
        @Override
        public void openAssignment(String id) {}

        @Override
        public void openActor(String actor) {}

        @Override
        public void openProcess(String identity) {}
    };
}
