package dev.sovereign.engine.cli;

import picocli.CommandLine.Command;

/** {@code sovereign actor ...}: the actor registry. */
@Command(
        name = "actor",
        description = "Manage actors: add, list.",
        subcommands = {ActorAddCommand.class, ActorListCommand.class})
final class ActorCommand {}
