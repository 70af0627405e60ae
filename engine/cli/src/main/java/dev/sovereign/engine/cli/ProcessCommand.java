package dev.sovereign.engine.cli;

import picocli.CommandLine.Command;

/** {@code sovereign process ...}: the process registry's operator actions. */
@Command(
        name = "process",
        description = "Operator actions on the process registry: stop.",
        subcommands = {ProcessStopCommand.class})
final class ProcessCommand {}
