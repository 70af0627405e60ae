package dev.sovereign.engine.actor;

/** A durable, configured identity that a process may host. Has no lifetime of its own. */
public record Actor(String id, String workspacePolicy, long createdAt) {}
