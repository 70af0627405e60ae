#!/usr/bin/env python3
"""An agent that hosts an actor through `sovereign serve --stdio` and runs one assignment.

Standard library only. It starts ONE long-lived Sovereign process, so the JVM starts once, the agent keeps
one process identity for its whole life and that process's heartbeat keeps its lease alive between
requests. Each request is one JSON line on the server's stdin; each answer is one JSON line on its stdout.

    python3 docs/examples/agent.py --db ledger.db                 # uses `sovereign` on the PATH
    python3 docs/examples/agent.py --db ledger.db -- ./sovereign  # or the command given after --

The ledger must exist (`sovereign --db ledger.db init`). See docs/agents.md.
"""

import argparse
import json
import subprocess
import sys


class Refused(Exception):
    """The ledger said no (a live lease, a stale token, ...): expected, and worth reading."""

    def __init__(self, answer):
        super().__init__(f"{answer.get('category') or answer.get('error')}: {answer.get('message')}")
        self.answer = answer


class Sovereign:
    """One `sovereign serve --stdio` process: call(op, **fields) sends a request and returns its answer."""

    def __init__(self, command, db):
        self._process = subprocess.Popen(
            command + ["--db", db, "serve", "--stdio"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
        self._next_id = 0

    def call(self, op, **fields):
        self._next_id += 1
        request = {"id": self._next_id, "op": op, **fields}
        self._process.stdin.write(json.dumps(request) + "\n")
        self._process.stdin.flush()
        line = self._process.stdout.readline()
        if not line:
            raise RuntimeError("sovereign serve ended before answering " + json.dumps(request))
        answer = json.loads(line)
        assert answer["id"] == request["id"], answer
        if not answer["ok"]:
            raise Refused(answer)
        return answer

    def close(self):
        """End of input: the server releases what it still holds and exits 0."""
        self._process.stdin.close()
        return self._process.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--db", required=True, help="the ledger (a SQLite file or a jdbc:postgresql:// URL)")
    parser.add_argument("--actor", default="agent", help="the actor to host (added if it is missing)")
    parser.add_argument("command", nargs="*", default=["sovereign"], help="how to start sovereign")
    args = parser.parse_args()

    server = Sovereign(args.command, args.db)
    try:
        print("process", server.call("identity")["process"])
        try:
            server.call("actor.add", actor=args.actor)
        except Refused as refused:
            if refused.answer.get("category") != "actor_exists":
                raise
        lease = server.call("lease.acquire", actor=args.actor, ttl="30s")
        print("lease", lease["actor"], "token", lease["token"])
        job = server.call("assign", actor=args.actor, provider="scripted:ms=100,outcome=completed")
        run = server.call("run", assignment=job["assignment"])
        print("run", run["assignment"], run["state"], "attempt token", run["attempt"]["token"])
        print("receipt", run["receipt"]["status"])
        server.call("lease.release", actor=args.actor, token=lease["token"])
    except Refused as refused:
        print("refused", refused, file=sys.stderr)
        server.close()
        return 1
    print("serve exited", server.close())
    return 0


if __name__ == "__main__":
    sys.exit(main())
