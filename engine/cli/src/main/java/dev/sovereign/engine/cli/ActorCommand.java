package dev.sovereign.engine.cli;

import picocli.CommandLine.Command;

/** {@code sovereign actor ...}: the actor registry. */
@Command(
        name = "actor",
        description = "Manage actors: add, list, workers-may-add.",
        subcommands = {ActorAddCommand.class, ActorListCommand.class, ActorWorkersMayAddCommand.class})
final class ActorCommand {}
