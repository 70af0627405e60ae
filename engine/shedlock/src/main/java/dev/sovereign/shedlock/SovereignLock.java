package dev.sovereign.shedlock;

import java.util.Iterator;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The fencing token of the lock the current thread holds, for the task that runs under it: pass it to every
 * resource the task writes, and let the resource refuse a token lower than the highest it has seen. That is what
 * keeps a task whose lock expired mid-run (a long pause, a slow network) from overwriting the work of the next
 * holder: the time-based lock alone cannot (docs/shedlock.md, decision 0318).
 *
 * <p>Set when {@link SovereignLockProvider} grants a lock on this thread and cleared when that lock is unlocked
 * (from whichever thread); an extension keeps it, as it keeps the token. ShedLock's {@code LockingTaskExecutor}
 * and its Spring integration take the lock on the thread that runs the task, so the task sees its token here. A
 * task that hands work to other threads must hand the token along: those threads see nothing here.
 *
 * <p>Locks nest (a task under lock {@code a} may run a task under lock {@code b}): {@link #currentToken()} is the
 * innermost lock's token, {@link #currentToken(String)} a named one's.
 */
public final class SovereignLock {
    /**
     * The locks this thread took and has not unlocked, innermost last. Each lock keeps the deque it was put in, so
     * an unlock on another thread still removes it; hence a concurrent deque.
     */
    private static final ThreadLocal<ConcurrentLinkedDeque<Held>> HELD =
            ThreadLocal.withInitial(ConcurrentLinkedDeque::new);

    private SovereignLock() {}

    /** The token of the innermost lock this thread holds through the provider, or empty when it holds none. */
    public static OptionalLong currentToken() {
        Held last = HELD.get().peekLast();
        return last == null ? OptionalLong.empty() : OptionalLong.of(last.token);
    }

    /** The token of the lock named {@code lockName} this thread holds through the provider, or empty. */
    public static OptionalLong currentToken(String lockName) {
        Iterator<Held> it = HELD.get().descendingIterator();
        while (it.hasNext()) {
            Held h = it.next();
            if (h.name.equals(lockName)) {
                return OptionalLong.of(h.token);
            }
        }
        return OptionalLong.empty();
    }

    /**
     * The token of the innermost lock this thread holds, for code that must not run without one.
     *
     * @throws IllegalStateException when this thread holds no lock granted by {@link SovereignLockProvider}
     */
    public static long requireToken() {
        return currentToken()
                .orElseThrow(() -> new IllegalStateException("This thread holds no lock granted by a"
                        + " SovereignLockProvider, so it has no fencing token: run the task under the lock (a"
                        + " LockingTaskExecutor or @SchedulerLock), or pass the token to the thread that needs it."));
    }

    /** Records a lock granted on this thread; the returned entry removes it, from any thread. */
    static Held held(String name, long token) {
        ConcurrentLinkedDeque<Held> deque = HELD.get();
        Held h = new Held(deque, name, token);
        deque.addLast(h);
        return h;
    }

    /** One lock's entry: removed by identity, so nested locks of the same name stay apart. */
    static final class Held {
        private final ConcurrentLinkedDeque<Held> deque;
        private final String name;
        private final long token;

        private Held(ConcurrentLinkedDeque<Held> deque, String name, long token) {
            this.deque = deque;
            this.name = name;
            this.token = token;
        }

        void remove() {
            deque.removeLastOccurrence(this);
        }
    }
}
