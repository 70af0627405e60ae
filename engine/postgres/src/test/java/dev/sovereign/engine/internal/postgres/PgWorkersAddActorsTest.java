package dev.sovereign.engine.internal.postgres;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.actor.Actor;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.StorageException;
import dev.sovereign.engine.testing.PgLogins;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Decision 0116 on PostgreSQL: a worker login adds an actor (a lock name met at run time) only when the ledger's owner
 * let worker logins add actors, which is PostgreSQL's own privilege (INSERT on {@code actors} for the worker role), so
 * the database decides, not the engine. The owner alone switches it: another login's GRANT is only a warning to
 * PostgreSQL, and the engine refuses it rather than reporting a switch that did not happen. Whatever the switch, a
 * worker login never updates or deletes an actor, by any statement. Real logins on the embedded server.
 */
class PgWorkersAddActorsTest {
    private static PgLogins logins;
    private Engine owner;
    private Engine worker;
    private Engine operator;

    @BeforeAll
    static void ledger() throws Exception {
        logins = PgLogins.open();
    }

    @AfterAll
    static void closeLedger() throws Exception {
        logins.close();
    }

    private Engine ownerEngine() {
        return Engine.openExisting(
                EngineConfig.forDatabase(logins.db().url()).heartbeat(false).build());
    }

    @AfterEach
    void closeEngines() {
        for (Engine e : new Engine[] {owner, worker, operator}) {
            if (e != null) {
                e.close();
            }
        }
        try (Engine o = ownerEngine()) {
            o.setWorkersMayAddActors(false);
        }
    }

    @Test
    void aWorkerLoginAddsAnActorOnlyAfterTheOwnerSaidSoAndTheSentenceNamesBothSteps() {
        worker = logins.engineAs(logins.hostA());
        assertThat(worker.workersMayAddActors()).isFalse();
        assertThatThrownBy(() -> worker.actors().ensure("nightly-report"))
                .isInstanceOfSatisfying(StorageException.class, e -> {
                    assertThat(e.problem()).isEqualTo(StorageException.Problem.READ_ONLY);
                    assertThat(e.getMessage())
                            .contains("may not add actors")
                            .contains("sovereign actor add NAME")
                            .contains("sovereign actor workers-may-add on");
                });
        assertThat(worker.actors().find("nightly-report")).isEmpty();

        // an actor the operator added is the worker's to use, with no write
        operator = logins.engineAs(logins.ops());
        Actor added = operator.actors().ensure("weekly-report");
        assertThat(worker.actors().ensure("weekly-report")).isEqualTo(added);

        owner = ownerEngine();
        owner.setWorkersMayAddActors(true);
        assertThat(worker.workersMayAddActors()).isTrue();
        Actor mine = worker.actors().ensure("nightly-report");
        assertThat(mine.id()).isEqualTo("nightly-report");
        assertThat(worker.actors().ensure("nightly-report")).isEqualTo(mine);

        // the grant is the owner's choice: a worker login still opens the ledger (no grant problem is reported)
        Engine again = logins.engineAs(logins.hostB());
        assertThat(again.actors().ensure("hourly-report").id()).isEqualTo("hourly-report");
        again.close();

        owner.setWorkersMayAddActors(false);
        assertThatThrownBy(() -> worker.actors().ensure("yearly-report")).isInstanceOf(StorageException.class);
    }

    @Test
    void onlyTheOwnerThrowsTheSwitchAndAnotherLoginIsRefusedNotIgnored() {
        worker = logins.engineAs(logins.hostA());
        operator = logins.engineAs(logins.ops());
        for (Engine notOwner : new Engine[] {worker, operator}) {
            assertThatThrownBy(() -> notOwner.setWorkersMayAddActors(true))
                    .isInstanceOfSatisfying(
                            StorageException.class,
                            e -> assertThat(e.getMessage()).contains("Only the owner"));
            assertThat(notOwner.workersMayAddActors()).isFalse();
        }
        owner = ownerEngine();
        owner.setWorkersMayAddActors(true);
        assertThatThrownBy(() -> worker.setWorkersMayAddActors(false)).isInstanceOf(StorageException.class);
        assertThat(owner.workersMayAddActors()).isTrue();
    }

    @Test
    void aWorkerLoginNeverChangesOrRemovesAnActorByHandWhateverTheSwitch() {
        logins.owner().exec("INSERT INTO actors (id, workspace_policy, created_at) VALUES ('kept', 'temporary', 1)");
        owner = ownerEngine();
        for (boolean allowed : new boolean[] {false, true}) {
            owner.setWorkersMayAddActors(allowed);
            logins.asA().refused("permission denied", "UPDATE actors SET workspace_policy = 'persistent'");
            logins.asA().refused("permission denied", "DELETE FROM actors WHERE id = 'kept'");
            logins.asA().refused("permission denied", "TRUNCATE actors CASCADE");
            logins.asA()
                    .refused(
                            "permission denied",
                            "INSERT INTO actors (id, workspace_policy, created_at) VALUES ('kept', 'persistent', 2)"
                                    + " ON CONFLICT (id) DO UPDATE SET workspace_policy = excluded.workspace_policy");
            // a GRANT by a login without the grant option is only a warning to PostgreSQL: nothing is granted
            logins.asA().passes("GRANT INSERT, UPDATE, DELETE ON actors TO PUBLIC");
            assertThat(logins.owner()
                            .scalar("SELECT count(*) FROM unnest(ARRAY['INSERT', 'UPDATE', 'DELETE']) p"
                                    + " WHERE has_table_privilege('public', 'actors', p)"))
                    .isZero();
        }
        // by hand, as the engine does it, when allowed: INSERT only
        logins.asA().passes("INSERT INTO actors (id, workspace_policy, created_at) VALUES ('by-hand', 'temporary', 3)");
        owner.setWorkersMayAddActors(false);
        logins.asA()
                .refused(
                        "permission denied",
                        "INSERT INTO actors (id, workspace_policy, created_at) VALUES ('by-hand-2', 'temporary', 3)");
        assertThat(logins.owner().text("SELECT workspace_policy FROM actors WHERE id = 'kept'"))
                .isEqualTo("temporary");
    }
}
