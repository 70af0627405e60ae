package dev.sovereign.engine.bench;

/** Development aid: prints the WAL census. */
public final class WalCensusProbe {
    private WalCensusProbe() {}

    public static void main(String[] args) throws Exception {
        WalCensus.take().forEach((k, v) -> System.out.printf("%-40s %.2f%n", k, v));
    }
}
