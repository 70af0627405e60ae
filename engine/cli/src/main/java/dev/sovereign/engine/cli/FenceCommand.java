package dev.sovereign.engine.cli;

import picocli.CommandLine.Command;

/** {@code sovereign fence ...}: operator actions on the token counter: bump. */
@Command(
        name = "fence",
        description = "Operator actions on the fencing-token counter: bump.",
        subcommands = {FenceBumpCommand.class})
final class FenceCommand {}
