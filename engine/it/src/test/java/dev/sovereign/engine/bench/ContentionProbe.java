package dev.sovereign.engine.bench;

import dev.sovereign.engine.base.Durability;
import java.time.Duration;
import java.util.Arrays;

/** Development aid: runs contention cases from the command line and prints one line each. */
public final class ContentionProbe {
    private ContentionProbe() {}

    public static void main(String[] args) throws Exception {
        Durability d = Durability.valueOf(args[0]);
        ContentionDriver.Target t = ContentionDriver.Target.valueOf(args[1]);
        int n = Integer.parseInt(args[2]);
        BusySetting busy = args[3].equals("default") ? BusySetting.ENGINE_DEFAULT : BusySetting.SHORT_PAUSES;
        long ms = Long.parseLong(args[4]);
        ContentionDriver.Result r = new ContentionDriver(Duration.ofMillis(1000), Duration.ofMillis(ms))
                .run(new ContentionDriver.Case(d, t, n, busy));
        System.out.printf(
                "%s %s n=%d %s: %.0f grants/s shares=%s p50=%.2fms p99=%.2fms max=%.1fms refusals=%d errors=%d%n",
                d,
                t,
                n,
                busy.name(),
                r.grantsPerSecond(),
                Arrays.toString(Arrays.stream(r.shares())
                        .map(x -> Math.round(x * 1000) / 10.0)
                        .toArray()),
                r.waitPercentileMillis(50),
                r.waitPercentileMillis(99),
                r.waitPercentileMillis(100),
                r.refusals(),
                r.storageErrors());
    }
}
