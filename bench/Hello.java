/** The floor of bench/cli-start.sh: a Java program that does nothing, started as the CLI is. */
public final class Hello {
    private Hello() {}

    public static void main(String[] args) {
        System.out.print("");
    }
}
