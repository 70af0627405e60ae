package dev.sovereign.shedlock;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sovereign.engine.Engine;
import dev.sovereign.engine.base.Durability;
import dev.sovereign.engine.base.EngineConfig;
import dev.sovereign.engine.base.Refusal;
import dev.sovereign.engine.base.RefusalCategory;
import dev.sovereign.engine.journal.EventKind;
import dev.sovereign.engine.journal.FenceEvent;
import dev.sovereign.engine.lease.Lease;
import dev.sovereign.engine.testing.Contract;
import dev.sovereign.engine.testing.SettableClock;
import dev.sovereign.engine.testing.TempDatabase;
import dev.sovereign.engine.testing.TestBackend;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import net.javacrumbs.shedlock.core.DefaultLockingTaskExecutor;
import net.javacrumbs.shedlock.core.LockConfiguration;
import net.javacrumbs.shedlock.core.LockExtender;
import net.javacrumbs.shedlock.core.LockingTaskExecutor.TaskResult;
import net.javacrumbs.shedlock.core.SimpleLock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The ShedLock provider (decision 0318) on every backend, held to what ShedLock documents of a lock provider: a
 * lock is granted to one holder at a time and refused (empty, no exception) to every other try, including the
 * holder's own; unlock lets the next one in; {@code lockAtLeastFor} keeps an early-finished lock until its time;
 * {@code lockAtMostFor} ends a lock whose holder never unlocks; {@code extend} prolongs a live lock and is refused
 * on an expired one; an unlocked or extended lock cannot be used again. And what Sovereign adds: every grant
 * carries a strictly greater fencing token, the task reads it, and a stale holder's unlock is refused and
 * journalled without touching the new holder. Two engines on one ledger play two nodes; the clock is moved, never
 * slept on.
 */
@Contract
abstract class ShedLockProviderContract {
    /** The backend this class's ledgers are on: each backend's module has its subclass (decision 0015). */
    protected abstract TestBackend backend();

    @RegisterExtension
    final TempDatabase temp = new TempDatabase(this::backend);

    protected final SettableClock clock = new SettableClock();
    protected Engine a;
    protected Engine b;
    protected SovereignLockProvider onA;
    protected SovereignLockProvider onB;

    private static final Duration TEN_S = Duration.ofSeconds(10);

    @BeforeEach
    void open() {
        a = temp.open(clock);
        b = temp.open(clock);
        onA = new SovereignLockProvider(a);
        onB = new SovereignLockProvider(b);
    }

    /** Every test unlocks what it locked: a grant left on the thread would show its token to the next test. */
    @AfterEach
    void noTokenLeftOnTheThread() {
        assertThat(SovereignLock.currentToken()).isEmpty();
    }

    /** A lock configuration made now by the test's clock. */
    protected LockConfiguration config(String name, Duration atMost, Duration atLeast) {
        return new LockConfiguration(clock.instant(), name, atMost, atLeast);
    }

    private Lease leaseOf(String name) {
        return a.leases().current(name).orElseThrow();
    }

    private List<FenceEvent> rejected(Engine by, String lockName) {
        return a.journal().since(0, 100_000).stream()
                .filter(ev -> ev.kind() == EventKind.REJECTED
                        && by.processIdentity().equals(ev.processIdentity())
                        && lockName.equals(ev.actorId()))
                .toList();
    }

    /** An engine on the ledger through a worker host's login (on a file: the file itself, which has none). */
    protected Engine workerEngine(String host) {
        EngineConfig config = EngineConfig.forDatabase(temp.backend().workerLogin(temp.location(), host))
                .dataDirectory(temp.dir().resolve("data-" + host))
                .clock(clock)
                .heartbeat(false)
                .busyBound(Duration.ofSeconds(10))
                .build();
        return temp.open(config);
    }

    @Test
    void aHeldLockIsRefusedToEveryOtherTryAndUnlockLetsTheNextOneInWithAGreaterToken() {
        SimpleLock first = onA.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        long firstToken = SovereignLock.currentToken("report").orElseThrow();
        assertThat(leaseOf("report").token()).isEqualTo(firstToken);
        assertThat(leaseOf("report").process()).isEqualTo(a.processIdentity());

        assertThat(onB.lock(config("report", TEN_S, Duration.ZERO))).isEmpty(); // another node
        assertThat(onA.lock(config("report", TEN_S, Duration.ZERO))).isEmpty(); // this node again: not reentrant
        assertThat(new SovereignLockProvider(a).lock(config("report", TEN_S, Duration.ZERO)))
                .isEmpty();
        // another name is another lock
        SimpleLock other = onB.lock(config("invoice", TEN_S, Duration.ZERO)).orElseThrow();

        first.unlock();
        assertThat(a.leases().current("report")).isEmpty();
        SimpleLock second = onB.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        assertThat(leaseOf("report").token()).isGreaterThan(firstToken);
        assertThat(leaseOf("report").process()).isEqualTo(b.processIdentity());
        second.unlock();
        other.unlock();
        // a refused try is an expected outcome, and it is journalled like every refused grant
        assertThat(rejected(b, "report"))
                .singleElement()
                .satisfies(r -> assertThat(r.category()).isEqualTo("actor_lease_held"));
    }

    @Test
    void anUnlockOrASuccessfulExtensionSpendsTheLock() {
        SimpleLock lock = onA.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        SimpleLock extended = lock.extend(TEN_S, Duration.ZERO).orElseThrow();
        assertThatThrownBy(lock::unlock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> lock.extend(TEN_S, Duration.ZERO)).isInstanceOf(IllegalStateException.class);
        assertThat(a.leases().current("report")).isPresent(); // the spent one's calls wrote nothing

        extended.unlock();
        assertThatThrownBy(extended::unlock).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> extended.extend(TEN_S, Duration.ZERO)).isInstanceOf(IllegalStateException.class);
        assertThat(a.leases().current("report")).isEmpty();
        // ShedLock's own rule for the two durations still holds on an extension
        SimpleLock again = onA.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        assertThatThrownBy(() -> again.extend(Duration.ofSeconds(1), Duration.ofSeconds(2)))
                .isInstanceOf(IllegalArgumentException.class);
        again.unlock();
    }

    @Test
    void lockAtLeastForKeepsAnEarlyUnlockedLockUntilItsTimeThenLetsOthersIn() {
        Instant start = clock.instant();
        SimpleLock lock =
                onA.lock(config("report", Duration.ofSeconds(60), TEN_S)).orElseThrow();
        long token = SovereignLock.requireToken();
        clock.advance(Duration.ofSeconds(2));
        lock.unlock(); // the task took 2 s; the lock must stay until start + 10 s
        assertThat(SovereignLock.currentToken()).isEmpty();

        Lease kept = leaseOf("report");
        assertThat(kept.token()).isEqualTo(token);
        assertThat(kept.expiresAt()).isEqualTo(start.plus(TEN_S).toEpochMilli());
        clock.advance(Duration.ofMillis(7_999)); // start + 9.999 s
        assertThat(onB.lock(config("report", TEN_S, Duration.ZERO))).isEmpty();
        assertThat(onA.lock(config("report", TEN_S, Duration.ZERO))).isEmpty();
        clock.advance(Duration.ofMillis(1)); // start + 10 s: lockAtLeastUntil
        SimpleLock next = onB.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        assertThat(leaseOf("report").token()).isGreaterThan(token);
        next.unlock();
    }

    @Test
    void anUnlockAfterLockAtLeastForHasPassedReleasesAtOnce() {
        SimpleLock lock =
                onA.lock(config("report", Duration.ofSeconds(60), TEN_S)).orElseThrow();
        clock.advance(Duration.ofSeconds(11));
        lock.unlock();
        assertThat(a.leases().current("report")).isEmpty();
        onB.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow().unlock();
    }

    @Test
    void lockAtMostForEndsTheLockOfAHolderThatNeverUnlocksThoughItsEngineBeats() {
        Instant start = clock.instant();
        SimpleLock abandoned = onA.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow(); // its node hangs
        long token = SovereignLock.requireToken();
        for (int i = 0; i < 9; i++) {
            clock.advance(Duration.ofSeconds(1));
            a.heartbeatNow(); // the engine is alive; the lock must still end at lockAtMostUntil
            assertThat(onB.lock(config("report", TEN_S, Duration.ZERO))).isEmpty();
        }
        clock.advance(Duration.ofMillis(999));
        assertThat(onB.lock(config("report", TEN_S, Duration.ZERO))).isEmpty();
        assertThat(leaseOf("report").expiresAt()).isEqualTo(start.plus(TEN_S).toEpochMilli());
        clock.advance(Duration.ofMillis(1)); // lockAtMostUntil
        SimpleLock taken = onB.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        Lease newer = leaseOf("report");
        assertThat(newer.token()).isGreaterThan(token);
        assertThat(newer.process()).isEqualTo(b.processIdentity());
        abandoned.unlock(); // the hung node wakes up and unlocks: refused, the new holder keeps its lock
        assertThat(leaseOf("report")).isEqualTo(newer);
        taken.unlock();
    }

    @Test
    void aConfigurationWhoseLockAtMostUntilHasPassedGrantsNothingAndWritesNothing() {
        LockConfiguration late = config("report", TEN_S, Duration.ZERO);
        clock.advance(TEN_S);
        assertThat(onA.lock(late)).isEmpty();
        assertThat(a.actors().find("report")).isEmpty();
        assertThat(a.leases().current("report")).isEmpty();
    }

    @Test
    void extendProlongsALiveLockKeepingItsTokenAndTheLockAtLeastForOfTheExtension() {
        Instant start = clock.instant();
        SimpleLock lock = onA.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        long token = SovereignLock.requireToken();
        clock.advance(Duration.ofSeconds(8));
        SimpleLock extended =
                lock.extend(Duration.ofSeconds(20), Duration.ofSeconds(15)).orElseThrow();
        assertThat(SovereignLock.requireToken()).isEqualTo(token);
        Lease lease = leaseOf("report");
        assertThat(lease.token()).isEqualTo(token);
        assertThat(lease.expiresAt()).isEqualTo(start.plusSeconds(28).toEpochMilli());

        clock.advance(Duration.ofSeconds(5)); // past the first lockAtMostUntil: still held
        assertThat(onB.lock(config("report", TEN_S, Duration.ZERO))).isEmpty();
        extended.unlock(); // before start + 8 + 15 s: kept until then
        assertThat(SovereignLock.currentToken()).isEmpty();
        assertThat(leaseOf("report").expiresAt())
                .isEqualTo(start.plusSeconds(23).toEpochMilli());
        clock.advance(Duration.ofMillis(9_999));
        assertThat(onB.lock(config("report", TEN_S, Duration.ZERO))).isEmpty();
        clock.advance(Duration.ofMillis(1));
        onB.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow().unlock();
    }

    @Test
    void extendIsRefusedOnceTheLockExpiredEvenWhenNobodyTookItAndTheLockStillUnlocks() {
        SimpleLock lock = onA.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        long token = SovereignLock.requireToken();
        clock.advance(TEN_S); // expired exactly now; nobody has taken it
        assertThat(lock.extend(TEN_S, Duration.ZERO)).isEmpty();
        assertThat(leaseOf("report").expiresAt()).isEqualTo(clock.millis()); // not revived
        assertThat(rejected(a, "report"))
                .singleElement()
                .satisfies(r -> assertThat(r.presentedToken()).isEqualTo(token));
        // a refused extension does not spend the lock: the task's final unlock still runs, and frees the row
        assertThat(SovereignLock.requireToken()).isEqualTo(token);
        lock.unlock();
        assertThat(SovereignLock.currentToken()).isEmpty();
        assertThat(a.leases().current("report")).isEmpty();
        onB.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow().unlock();
    }

    @Test
    void extendAfterATakeoverIsRefusedAndTheStaleUnlockLeavesTheNewHolderAloneAndIsJournalled() {
        SimpleLock stale = onA.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        long oldToken = SovereignLock.requireToken();
        clock.advance(TEN_S);
        SimpleLock taken = onB.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        Lease newer = leaseOf("report");
        assertThat(newer.token()).isGreaterThan(oldToken);

        assertThat(stale.extend(TEN_S, Duration.ZERO)).isEmpty();
        stale.unlock(); // a stale unlock (even one keeping lockAtLeastFor) must not free or change the new lock
        assertThat(leaseOf("report")).isEqualTo(newer);
        assertThat(onA.lock(config("report", TEN_S, Duration.ZERO))).isEmpty();
        List<FenceEvent> refusals = rejected(a, "report");
        assertThat(refusals).hasSize(3); // the extension, the unlock, the try just now
        assertThat(refusals.get(1).presentedToken()).isEqualTo(oldToken);
        assertThat(refusals.get(1).currentToken()).isEqualTo(newer.token());
        taken.unlock();
    }

    @Test
    void aStaleUnlockKeepingLockAtLeastForCannotStretchTheNewHoldersLock() {
        SimpleLock stale = onA.lock(config("report", TEN_S, TEN_S)).orElseThrow();
        clock.advance(TEN_S);
        SimpleLock taken = onB.lock(config("report", TEN_S, Duration.ZERO)).orElseThrow();
        Lease newer = leaseOf("report");
        stale.unlock();
        assertThat(leaseOf("report")).isEqualTo(newer);
        taken.unlock();
        assertThat(a.leases().current("report")).isEmpty();
    }

    @Test
    void aLockingTaskExecutorRunsTheTaskUnderTheLockAndTheTaskReadsItsToken() throws Throwable {
        DefaultLockingTaskExecutor executor = new DefaultLockingTaskExecutor(onA);
        List<Long> seen = new ArrayList<>();
        LockConfiguration c = config("nightly-report", Duration.ofMinutes(5), Duration.ZERO);

        TaskResult<Long> first = executor.executeWithLock(
                () -> {
                    long token = SovereignLock.requireToken();
                    assertThat(leaseOf("nightly-report").token()).isEqualTo(token);
                    // meanwhile another node's try is refused, and so is this node's next run of the same task
                    assertThat(onB.lock(config("nightly-report", TEN_S, Duration.ZERO)))
                            .isEmpty();
                    // (on another thread: on this one ShedLock runs a task of the lock it holds without asking)
                    AtomicReference<Boolean> ranElsewhere = new AtomicReference<>();
                    Thread other = new Thread(() -> {
                        try {
                            ranElsewhere.set(new DefaultLockingTaskExecutor(onB)
                                    .executeWithLock(() -> "ran", c)
                                    .wasExecuted());
                        } catch (Throwable e) {
                            throw new AssertionError(e);
                        }
                    });
                    other.start();
                    other.join();
                    assertThat(ranElsewhere.get()).isFalse();
                    // ShedLock's way for a long task to extend its lock: the token stays
                    clock.advance(Duration.ofMinutes(4));
                    LockExtender.extendActiveLock(Duration.ofMinutes(5), Duration.ZERO);
                    assertThat(SovereignLock.requireToken()).isEqualTo(token);
                    assertThat(leaseOf("nightly-report").expiresAt())
                            .isEqualTo(clock.millis() + Duration.ofMinutes(5).toMillis());
                    seen.add(token);
                    return token;
                },
                c);
        assertThat(first.wasExecuted()).isTrue();
        assertThat(SovereignLock.currentToken()).isEmpty();
        assertThat(a.leases().current("nightly-report")).isEmpty(); // the executor unlocked the extended lock
        assertThatThrownBy(SovereignLock::requireToken).isInstanceOf(IllegalStateException.class);

        TaskResult<Long> second = new DefaultLockingTaskExecutor(onB)
                .executeWithLock(
                        () -> SovereignLock.requireToken(),
                        config("nightly-report", Duration.ofMinutes(5), Duration.ZERO));
        assertThat(second.wasExecuted()).isTrue();
        assertThat(second.getResult()).isGreaterThan(first.getResult());
        assertThat(seen).containsExactly(first.getResult());
    }

    @Test
    void nestedLocksEachHaveTheirTokenAndAnUnlockOnAnotherThreadClearsTheLockingThreadsToken() throws Exception {
        SimpleLock outer = onA.lock(config("outer", TEN_S, Duration.ZERO)).orElseThrow();
        long outerToken = SovereignLock.requireToken();
        SimpleLock inner = onA.lock(config("inner", TEN_S, Duration.ZERO)).orElseThrow();
        long innerToken = SovereignLock.requireToken();
        assertThat(innerToken).isGreaterThan(outerToken);
        assertThat(SovereignLock.currentToken("outer")).hasValue(outerToken);
        assertThat(SovereignLock.currentToken("inner")).hasValue(innerToken);

        AtomicReference<OptionalLong> elsewhere = new AtomicReference<>();
        Thread t = new Thread(() -> {
            elsewhere.set(SovereignLock.currentToken());
            inner.unlock();
        });
        t.start();
        t.join();
        assertThat(elsewhere.get()).as("another thread holds no lock").isEmpty();
        assertThat(SovereignLock.currentToken()).hasValue(outerToken);
        assertThat(SovereignLock.currentToken("inner")).isEmpty();
        outer.unlock();
        assertThat(SovereignLock.currentToken()).isEmpty();
    }

    @Test
    void aLockNameNeverSeenIsRegisteredAsAnActorAndANameNoActorCanHaveIsRefused() {
        assertThat(a.actors().find("weekly-digest")).isEmpty();
        SimpleLock lock =
                onA.lock(config("weekly-digest", TEN_S, Duration.ZERO)).orElseThrow();
        assertThat(b.actors().find("weekly-digest")).isPresent();
        lock.unlock();
        // the other node meets it as an existing actor: no second add, and the lock works the same
        onB.lock(config("weekly-digest", TEN_S, Duration.ZERO)).orElseThrow().unlock();
        assertThat(a.actors().list()).extracting(act -> act.id()).containsOnlyOnce("weekly-digest");

        String tooLong = "x".repeat(201);
        assertThatThrownBy(() -> onA.lock(config(tooLong, TEN_S, Duration.ZERO)))
                .isInstanceOfSatisfying(
                        Refusal.class, r -> assertThat(r.category()).isEqualTo(RefusalCategory.INVALID_ARGUMENT));
        assertThat(SovereignLock.currentToken()).isEmpty();
    }

    /**
     * Two nodes, three threads each, four locks, a few hundred tries: at no moment do two holders believe they hold
     * the same lock, and each lock's tokens increase in the order it was granted. Each holder marks the lock held
     * right after it was granted and unmarks it right before it unlocks; a mark found set is a double grant. Some
     * holders keep their lock a little with lockAtLeastFor, so others get in by its expiry as well as by an unlock;
     * the clock moves a millisecond per round, far from the hour of lockAtMostFor, so no lock is taken over.
     */
    @Test
    void concurrentTriesFromTwoNodesNeverGrantALockTwiceAndTokensIncreaseInGrantOrder() throws Exception {
        Engine[] nodes = {
            temp.open(temp.config(clock).durability(Durability.NORMAL).build()),
            temp.open(temp.config(clock).durability(Durability.NORMAL).build())
        };
        SovereignLockProvider[] providers = {new SovereignLockProvider(nodes[0]), new SovereignLockProvider(nodes[1])};
        String[] names = {"fuzz-0", "fuzz-1", "fuzz-2", "fuzz-3"};
        List<AtomicReference<String>> holders = new ArrayList<>();
        List<AtomicLong> lastToken = new ArrayList<>();
        List<AtomicInteger> grants = new ArrayList<>();
        for (int i = 0; i < names.length; i++) {
            holders.add(new AtomicReference<>());
            lastToken.add(new AtomicLong());
            grants.add(new AtomicInteger());
        }
        ConcurrentLinkedQueue<String> violations = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> failures = new ConcurrentLinkedQueue<>();
        int threadsPerNode = 3;
        int rounds = 100;
        CyclicBarrier start = new CyclicBarrier(2 * threadsPerNode);
        List<Thread> threads = new ArrayList<>();
        for (int n = 0; n < 2; n++) {
            for (int t = 0; t < threadsPerNode; t++) {
                SovereignLockProvider provider = providers[n];
                String me = "node" + n + "-thread" + t;
                boolean ticks = n == 0 && t == 0; // one thread moves the clock, so a server's clock follows in order
                long seed = 31L * n + t;
                threads.add(new Thread(
                        () -> {
                            java.util.Random random = new java.util.Random(seed);
                            try {
                                start.await(30, TimeUnit.SECONDS);
                                for (int r = 0; r < rounds; r++) {
                                    if (ticks) {
                                        clock.advance(Duration.ofMillis(1));
                                    }
                                    int i = random.nextInt(names.length);
                                    Duration atLeast =
                                            Duration.ofMillis(random.nextInt(4) == 0 ? random.nextInt(5) : 0);
                                    Optional<SimpleLock> got = provider.lock(new LockConfiguration(
                                            clock.instant(), names[i], Duration.ofHours(1), atLeast));
                                    if (got.isEmpty()) {
                                        continue;
                                    }
                                    String before = holders.get(i).getAndSet(me);
                                    if (before != null) {
                                        violations.add(
                                                names[i] + " granted to " + me + " while " + before + " held it");
                                    }
                                    long token = SovereignLock.requireToken();
                                    long last = lastToken.get(i).getAndSet(token);
                                    if (token <= last) {
                                        violations.add(names[i] + " granted with token " + token + " after " + last);
                                    }
                                    grants.get(i).incrementAndGet();
                                    Thread.yield();
                                    if (!holders.get(i).compareAndSet(me, null)) {
                                        violations.add(names[i] + " was taken from " + me + " while it held it");
                                    }
                                    got.get().unlock();
                                }
                            } catch (Throwable e) {
                                failures.add(e);
                            }
                        },
                        me));
            }
        }
        threads.forEach(Thread::start);
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(60));
            assertThat(t.isAlive()).as(t.getName() + " finished").isFalse();
        }
        assertThat(failures).isEmpty();
        assertThat(violations).isEmpty();
        // the run was a real contest: every lock was granted, and many tries were refused
        assertThat(grants).allSatisfy(g -> assertThat(g.get()).isPositive());
        int granted = grants.stream().mapToInt(AtomicInteger::get).sum();
        assertThat(granted).isLessThan(2 * threadsPerNode * rounds);
    }
}
