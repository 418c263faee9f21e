#!/usr/bin/env python3
"""ctest cluster_redis_load_wait: how `tools/cluster up` waits for a Redis
that is reading its data back before it starts that node's carrierd
(wait_redis_loaded), against a real redis-server made to load slowly (Redis's
key-load-delay, on 3,000 keys in the append-only file's RDB base):
  - while it loads, `up` says how far it got, and returns once it has loaded,
    not before;
  - a Redis that stops answering while it loads (SIGSTOP) makes `up` fail,
    saying so and naming the Redis's log, instead of waiting for ever.
The function is tools/cluster's own, imported; the test shortens how long it
waits for an answer to INFO, which is all it changes."""

import contextlib
import hashlib
import importlib.machinery
import importlib.util
import io
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

from example_deployment import CLUSTER, Failure, expect, free_ports, run, wait

KEYS = 3000
# Each key read back waits this long: the load takes about three seconds.
KEY_LOAD_DELAY_US = 1000


def load_cluster_module():
    loader = importlib.machinery.SourceFileLoader("simsync_cluster", str(CLUSTER))
    spec = importlib.util.spec_from_loader("simsync_cluster", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


# tools/cluster, whose wait is tested and whose reading of INFO the test uses.
CLUSTER_MODULE = load_cluster_module()


class Redis:
    """A redis-server in `folder` with AOF on, whose only user is the
    operator tools/cluster asks INFO as."""

    def __init__(self, folder, user):
        self.folder, self.user = folder, user
        self.port = free_ports(1)[0]
        self.password = secrets.token_hex(24)
        (folder / "operator.password").write_text(self.password + "\n")
        digest = hashlib.sha256(self.password.encode()).hexdigest()
        (folder / "users.acl").write_text(
            f"user default off ~* &* +@all\nuser {user} on #{digest} ~* &* +@all\n")
        self.process = None

    def start(self, *extra):
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port),
             "--dir", str(self.folder), "--appendonly", "yes", "--save", "",
             "--aclfile", str(self.folder / "users.acl"),
             "--logfile", str(self.folder / "redis-server.log"), *extra],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def cli(self, *args, stdin=None, check=True):
        env = {**os.environ, "REDISCLI_AUTH": self.password}
        argv = ["redis-cli", "-p", str(self.port), "--user", self.user, *args]
        if stdin is None:
            return run(argv, env=env, check=check, timeout=20)
        return subprocess.run(argv, env=env, input=stdin, capture_output=True, text=True,
                              timeout=60, check=check)

    def persistence(self):
        return CLUSTER_MODULE.info_fields(self.cli("INFO", "persistence", check=False).stdout)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)  # a stopped one takes SIGTERM after
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def node_of(redis):
    """What wait_redis_loaded reads of a node."""
    return types.SimpleNamespace(name="test-node", redis_host="127.0.0.1",
                                 redis_port=redis.port, netns=None,
                                 redis_operator_file=redis.folder / "operator.password",
                                 data=redis.folder)


def fill_and_stop(redis):
    """KEYS keys, moved into the append-only file's RDB base (read key by key,
    so key-load-delay slows it), then a clean stop."""
    redis.start()
    wait("redis-server answering", lambda: redis.cli("PING", check=False).stdout.strip() == "PONG")
    commands = "".join(f"SET filler:{i} a-value-that-takes-a-while-to-load\n"
                       for i in range(KEYS))
    redis.cli(stdin=commands)
    redis.cli("BGREWRITEAOF")
    wait("the AOF rewrite", lambda: redis.persistence().get("aof_rewrite_in_progress") == "0"
         and redis.persistence().get("aof_rewrite_scheduled") == "0")
    redis.stop()


def start_loading_slowly(redis):
    redis.start("--key-load-delay", str(KEY_LOAD_DELAY_US),
                "--loading-process-events-interval-bytes", "1024")
    wait("redis-server loading", lambda: redis.persistence().get("loading") == "1", seconds=10)


def main():
    cluster = CLUSTER_MODULE
    folder = Path(tempfile.mkdtemp(prefix="simsync-load-wait-"))
    redis = Redis(folder, cluster.OPERATOR)
    try:
        fill_and_stop(redis)

        # 1. A load that moves on: `up` waits it out, saying how far it got.
        start_loading_slowly(redis)
        said = io.StringIO()
        started = time.monotonic()
        with contextlib.redirect_stdout(said):
            cluster.wait_redis_loaded(node_of(redis))
        took = time.monotonic() - started
        expect(redis.persistence().get("loading") == "0",
               f"wait_redis_loaded returned while the Redis was loading:\n{said.getvalue()}")
        expect("test-node: redis-server is loading its data: " in said.getvalue(),
               f"no progress said during the load:\n{said.getvalue()}")
        expect("test-node: redis-server has loaded its data" in said.getvalue(),
               f"the end of the load not said:\n{said.getvalue()}")
        expect(redis.cli("GET", f"filler:{KEYS - 1}").stdout.strip() ==
               "a-value-that-takes-a-while-to-load", "the data did not load back")
        print(f"waited {took:.1f} s for the load:\n{said.getvalue()}")
        redis.stop()

        # 2. A Redis that stops answering while it loads: `up` fails, saying so.
        start_loading_slowly(redis)
        redis.process.send_signal(signal.SIGSTOP)
        cluster.INFO_ANSWER_SECONDS = 2
        errors = io.StringIO()
        with contextlib.redirect_stderr(errors), contextlib.redirect_stdout(io.StringIO()):
            try:
                cluster.wait_redis_loaded(node_of(redis))
                raise Failure("wait_redis_loaded returned for a Redis that does not answer")
            except SystemExit as exit:
                expect(exit.code == 1, f"exit status {exit.code}, not 1")
        expected = (f"redis-server of test-node did not answer INFO in 2 s; "
                    f"see {folder / 'redis-server.log'}")
        expect(expected in errors.getvalue(), f"not said: {expected}\nsaid: {errors.getvalue()}")
        print(f"a Redis that stopped answering: {errors.getvalue().strip()}")
        print("cluster_redis_load_wait: passed")
        return 0
    except Failure as failure:
        print(f"cluster_redis_load_wait: FAILED: {failure}", file=sys.stderr)
        log = folder / "redis-server.log"
        if log.exists():
            print(log.read_text()[-2000:], file=sys.stderr)
        return 1
    finally:
        redis.stop()
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
