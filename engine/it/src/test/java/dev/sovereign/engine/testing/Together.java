package dev.sovereign.engine.testing;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/** Runs actions on separate threads released together by a barrier, to make them race for real. */
public final class Together {
    private Together() {}

    /** The results of {@code actions}, in order, each run on its own thread after all are ready. */
    public static <T> List<T> run(List<Supplier<T>> actions) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(actions.size());
        List<CompletableFuture<T>> running = new ArrayList<>();
        for (Supplier<T> action : actions) {
            running.add(CompletableFuture.supplyAsync(
                    () -> {
                        try {
                            barrier.await(10, TimeUnit.SECONDS);
                        } catch (Exception e) {
                            throw new IllegalStateException("the racers never met at the barrier", e);
                        }
                        return action.get();
                    },
                    r -> {
                        Thread t = new Thread(r, "racer");
                        t.setDaemon(true);
                        t.start();
                    }));
        }
        List<T> results = new ArrayList<>();
        for (CompletableFuture<T> f : running) {
            results.add(f.get(30, TimeUnit.SECONDS));
        }
        return results;
    }
}
