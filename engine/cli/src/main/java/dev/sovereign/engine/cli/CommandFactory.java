package dev.sovereign.engine.cli;

import picocli.CommandLine;
import picocli.CommandLine.IFactory;

/**
 * How picocli's build-time tools ({@code AutoComplete}, {@code ManPageGenerator}, run by
 * exec-maven-plugin in this module's {@code package} phase) make the command tree: the top-level
 * command needs its {@link CliEnvironment}, everything else has a no-argument constructor. Only the
 * model is read (names, options, descriptions); nothing runs. Stateless and thread-safe.
 */
public final class CommandFactory implements IFactory {
    @Override
    public <K> K create(Class<K> type) throws Exception {
        if (type == SovereignCommand.Tree.class) {
            return type.cast(new SovereignCommand.Tree(CliEnvironment.builder().build()));
        }
        return CommandLine.defaultFactory().create(type);
    }
}
