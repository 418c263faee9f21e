"""The faults tools/chaos injects, each with its cure. All of them act inside
the run's namespaces or on processes the run started, by pid.

This kernel build has no netem (sch_netem) nor tc actions, so the links are
cut with blackhole routes (both directions, so neither side's packets get
through) and slowed with an htb class holding a token bucket (tbf): a link
that queues, delays and drops what exceeds its rate. Reordering needs netem
and is not among the faults."""

import errno
import os
import signal
import subprocess
from dataclasses import dataclass
from typing import Callable

from .deployment import HarnessError

KINDS = ("kill_carrierd", "kill_redis", "stop_carrierd", "stop_redis",
         "partition_carriers", "partition_nodes", "slow_link", "disk_full")


def run(*argv):
    r = subprocess.run(argv, capture_output=True, text=True, timeout=30,
                       stdin=subprocess.DEVNULL)
    if r.returncode != 0:
        raise HarnessError(f"`{' '.join(argv)}` failed: {r.stderr.strip()}")


def pid_of(node, what):
    pid = node.pid(what)
    if pid is None:
        raise HarnessError(f"{node.name}: {what} is not running before the fault")
    return pid


@dataclass
class Fault:
    kind: str
    target: str  # what it hits, for the report
    inject: Callable[[], None]
    heal: Callable[[], None]


def process_fault(kind, node, deployment):
    what = "carrierd" if kind.endswith("carrierd") else "redis-server"
    target = f"{what} of {node.name}"
    if kind.startswith("kill"):
        # A crash, then tools/cluster's start_missing starts it again.
        return Fault(kind, target, lambda: os.kill(pid_of(node, what), signal.SIGKILL),
                     deployment.restart_missing)
    stopped = {}

    def inject():
        stopped["pid"] = pid_of(node, what)
        os.kill(stopped["pid"], signal.SIGSTOP)

    def heal():
        try:
            os.kill(stopped["pid"], signal.SIGCONT)
        except ProcessLookupError:
            deployment.restart_missing()
    return Fault(kind, target, inject, heal)


def cut(side, other):
    """Blackhole routes both ways between two groups of nodes."""
    pairs = [(a, b) for a in side for b in other] + [(b, a) for a in side for b in other]

    def inject():
        for a, b in pairs:
            run("ip", "-n", a.netns, "route", "add", "blackhole", f"{b.address}/32")

    def heal():
        for a, b in pairs:
            subprocess.run(["ip", "-n", a.netns, "route", "del", "blackhole", f"{b.address}/32"],
                           capture_output=True, timeout=30)
    return inject, heal


def slow(node, others, rate_kbit, latency_ms):
    """What `node` sends to `others` goes through a token bucket of rate_kbit
    that holds a packet at most latency_ms (then drops it); everything else
    (its clients' answers) goes at full speed."""
    ns = ["tc", "-n", node.netns]

    def inject():
        run(*ns, "qdisc", "add", "dev", "eth0", "root", "handle", "1:", "htb", "default", "10")
        run(*ns, "class", "add", "dev", "eth0", "parent", "1:", "classid", "1:10", "htb",
            "rate", "10gbit")
        run(*ns, "class", "add", "dev", "eth0", "parent", "1:", "classid", "1:20", "htb",
            "rate", f"{rate_kbit}kbit")
        run(*ns, "qdisc", "add", "dev", "eth0", "parent", "1:20", "handle", "20:", "tbf",
            "rate", f"{rate_kbit}kbit", "burst", "4kb", "latency", f"{latency_ms}ms")
        for other in others:
            run(*ns, "filter", "add", "dev", "eth0", "parent", "1:", "protocol", "ip", "prio",
                "1", "u32", "match", "ip", "dst", f"{other.address}/32", "flowid", "1:20")

    def heal():
        subprocess.run([*ns, "qdisc", "del", "dev", "eth0", "root"], capture_output=True,
                       timeout=30)
    return inject, heal


def disk_full(deployment):
    """Fills the small disk that one Redis keeps its AOF on. With appendfsync
    always, Redis cannot acknowledge a write it could not log and exits at
    the first one; the cure frees the disk and restarts it."""
    node, path = deployment.small_disk
    filler = path / "filler"

    def inject():
        with open(filler, "wb") as f:
            disk = os.statvfs(path)
            free = disk.f_bavail * disk.f_frsize
            while free > 0:  # a block less each time the last one does not fit
                try:
                    os.posix_fallocate(f.fileno(), 0, free)
                    break
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise HarnessError(f"cannot fill {path}: {e.strerror}") from None
                    free -= disk.f_frsize

    def heal():
        filler.unlink(missing_ok=True)
        deployment.restart_missing()
    return Fault("disk_full", f"the AOF disk of {node.name}'s redis-server", inject, heal)


def choose(kind, rng, deployment):
    """One fault of `kind` on targets chosen with rng."""
    nodes = deployment.nodes
    carriers = deployment.carriers()
    if kind in ("kill_carrierd", "kill_redis", "stop_carrierd", "stop_redis"):
        return process_fault(kind, rng.choice(nodes), deployment)
    if kind == "partition_carriers":
        x, y = rng.sample(sorted(carriers), 2)
        return Fault(kind, f"{x} | {y}", *cut(carriers[x], carriers[y]))
    if kind == "partition_nodes":
        several = sorted(c for c, ns in carriers.items() if len(ns) > 1)
        a, b = rng.sample(carriers[rng.choice(several)], 2)
        return Fault(kind, f"{a.name} | {b.name}", *cut([a], [b]))
    if kind == "slow_link":
        node = rng.choice(nodes)
        rate, latency = rng.choice([(64, 50), (256, 100), (1024, 20)])
        others = [n for n in nodes if n is not node]
        return Fault(kind, f"{node.name} -> peers at {rate} kbit/s, {latency} ms queue",
                     *slow(node, others, rate, latency))
    if kind == "disk_full":
        return disk_full(deployment)
    raise ValueError(kind)


def available(deployment):
    carriers = deployment.carriers()
    kinds = list(KINDS)
    if not any(len(ns) > 1 for ns in carriers.values()):
        kinds.remove("partition_nodes")
    if deployment.small_disk is None:
        kinds.remove("disk_full")
    return kinds
