package dev.sovereign.engine.provider;

/**
 * Makes a {@link Provider} from the argument of a provider spec ({@code kind:argument}; the
 * argument is empty when the spec has no colon). Throws {@link IllegalArgumentException} with a
 * short reason for an argument it cannot use; the engine turns that into {@code unknown_provider}.
 * Must be side-effect free: the engine calls it to validate specs at {@code assign} time too.
 */
@FunctionalInterface
public interface ProviderFactory {
    Provider create(String argument);
}
