package dev.sovereign.engine.base;

/**
 * How hard SQLite pushes each commit to disk.
 *
 * <ul>
 *   <li>{@link #FULL} (the default): every commit is fsynced before it returns. A granted token
 *       survives a power loss, so the counter can never hand out the same token twice.</li>
 *   <li>{@link #NORMAL}: in WAL mode, commits are durable against a process crash but the last
 *       commits before a power loss or OS crash may be rolled back. A token granted in such a
 *       commit could be granted again after the machine restarts, while the first grantee may
 *       have acted on it. Choose it only where a machine crash also ends every holder.</li>
 * </ul>
 * See docs/decisions/0001-durability-default.md.
 */
public enum Durability {
    FULL,
    NORMAL
}
