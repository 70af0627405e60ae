package dev.sovereign.engine;

import dev.sovereign.engine.admin.OperatorActions;
import dev.sovereign.engine.admin.ProcessRef;
import dev.sovereign.engine.admin.SupervisorTickRow;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.LedgerLocation;
import dev.sovereign.engine.internal.run.EngineSupervisor;
import dev.sovereign.engine.process.ProcessInfo;
import dev.sovereign.engine.supervisor.Supervisor;
import dev.sovereign.engine.supervisor.SupervisorLoop;
import dev.sovereign.engine.supervisor.TickRecord;
import dev.sovereign.engine.supervisor.TickReport;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * {@link OperatorActions} over an engine instance of kind {@code console}: retry and acknowledge
 * through {@code Engine.runs()}, ticks through the engine's supervisor, the auto-ticking supervisor
 * as a {@link SupervisorLoop} on one daemon thread. Thread-safe: the supervisor's start and stop are
 * serialised on this object (a listener may still ask {@link #isSupervisorRunning()} while a stop
 * waits for the tick that called it); everything else is the engine's, which is thread-safe.
 */
final class EngineOperatorActions implements OperatorActions {
    private final Engine engine;
    private final EngineSupervisor supervisor;
    private final ProcessRef self;
    private final List<SupervisorListener> listeners = new CopyOnWriteArrayList<>();
    private volatile SupervisorLoop loop;
    private Thread loopThread;
    private boolean closed;

    private EngineOperatorActions(Engine engine) {
        this.engine = engine;
        this.supervisor = (EngineSupervisor) engine.supervisor();
        ProcessInfo me = engine.processes().find(engine.processIdentity()).orElse(null);
        this.self = me == null
                ? ProcessRef.unknown(engine.processIdentity())
                : new ProcessRef(me.identity(), me.label(), me.pid(), me.host());
    }

    /** Opens an engine of kind {@code console} on an existing database (never creating one). */
    public static EngineOperatorActions open(LedgerLocation location, Clock clock) {
        Objects.requireNonNull(location, "location");
        Engine engine = Engine.openExisting(EngineConfig.forDatabase(location)
                .clock(clock)
                .processKind("console")
                .processLabel("console " + ProcessHandle.current().pid())
                .build());
        try {
            return new EngineOperatorActions(engine);
        } catch (RuntimeException e) {
            engine.close();
            throw e;
        }
    }

    @Override
    public String processIdentity() {
        return engine.processIdentity();
    }

    @Override
    public String retry(String assignmentId) {
        return engine.runs().retry(assignmentId).id();
    }

    @Override
    public void acknowledge(String assignmentId) {
        engine.runs().acknowledge(assignmentId);
    }

    @Override
    public void stopProcess(String identity) {
        engine.stopProcess(identity);
    }

    @Override
    public SupervisorTickRow tickSupervisor() {
        return tickAndTell().row();
    }

    private record Ticked(TickReport report, SupervisorTickRow row) {}

    /** One tick; its stored report goes to the listeners. */
    private Ticked tickAndTell() {
        EngineSupervisor.Recorded r = supervisor.tickRecorded();
        TickReport t = r.report();
        SupervisorTickRow row = new SupervisorTickRow(
                r.seq(),
                t.at(),
                self,
                t.expiredLeases().size(),
                t.staleProcesses().size(),
                t.sweptClaims().size(),
                t.recovered().size(),
                t.failures().size(),
                r.json());
        listeners.forEach(l -> l.ticked(row));
        return new Ticked(t, row);
    }

    @Override
    public synchronized void startSupervisor(Duration interval) {
        if (interval == null || interval.compareTo(MIN_SUPERVISOR_INTERVAL) < 0) {
            throw new IllegalArgumentException("the supervisor interval must be at least "
                    + MIN_SUPERVISOR_INTERVAL.toMillis() + " ms, got " + interval);
        }
        if (closed) {
            throw new IllegalStateException("these operator actions are closed");
        }
        stopSupervisor();
        Supervisor telling = new Supervisor() {
            @Override
            public TickReport tick() {
                return tickAndTell().report();
            }

            @Override
            public Optional<TickRecord> lastTick() {
                return supervisor.lastTick();
            }
        };
        SupervisorLoop next = new SupervisorLoop(telling, interval, report -> {}, e -> {
            String sentence = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
            listeners.forEach(l -> l.failed(sentence));
        });
        loop = next;
        loopThread = new Thread(next::run, "console-supervisor");
        loopThread.setDaemon(true);
        loopThread.start();
    }

    @Override
    public synchronized void stopSupervisor() {
        if (loop == null) {
            return;
        }
        loop.stop();
        try {
            if (!loop.awaitStopped(Duration.ofSeconds(10))) {
                loopThread.interrupt();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        loop = null;
        loopThread = null;
    }

    @Override
    public boolean isSupervisorRunning() {
        return loop != null;
    }

    @Override
    public void addSupervisorListener(SupervisorListener listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    @Override
    public void removeSupervisorListener(SupervisorListener listener) {
        listeners.remove(listener);
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        stopSupervisor();
        engine.close();
    }
}
