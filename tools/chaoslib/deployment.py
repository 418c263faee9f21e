"""The deployment tools/chaos runs: the two-node-carrier example (carrier-a on
two nodes, carrier-b and carrier-c on one each) started by tools/cluster in
network namespaces of the run's own, from a copy of the example's configs in
the run's work folder. tools/cluster is loaded as a module, so starting,
restarting and stopping are its code, not a copy of it."""

import contextlib
import importlib.machinery
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLE = ROOT / "config" / "examples" / "two-node-carrier"
SMALL_DISK = "256m"


def load_cluster():
    path = str(ROOT / "tools" / "cluster")
    loader = importlib.machinery.SourceFileLoader("simsync_cluster", path)
    spec = importlib.util.spec_from_loader(loader.name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


cluster = load_cluster()


class HarnessError(Exception):
    """The harness could not do its part (start, restart, set up a fault): not
    a finding about simsync; exit status 2."""


@contextlib.contextmanager
def quiet(log):
    """tools/cluster's progress lines, and those of the programs it runs
    (tools/pki), go to the run's log, not the report; its fail() (sys.exit)
    becomes a HarnessError with its last line."""
    sys.stdout.flush()
    sys.stderr.flush()
    saved = os.dup(1), os.dup(2)
    with open(log, "a+", encoding="utf-8") as f:
        start = f.tell()
        os.dup2(f.fileno(), 1)
        os.dup2(f.fileno(), 2)
        try:
            yield
        except SystemExit:
            sys.stdout.flush()
            sys.stderr.flush()
            f.seek(start)
            said = f.read().strip().splitlines()
            raise HarnessError(said[-1] if said else "tools/cluster failed") from None
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])


def reap():
    """Collects the exit status of every process this run started that has
    ended (a killed server), so none lingers as a zombie."""
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


class Deployment:
    def __init__(self, work, run_id):
        self.work = Path(work).resolve()
        self.configs = self.work / "configs"
        self.log = self.work / "cluster.log"
        self.prefix = f"simsync-chaos{run_id}-"
        self.subnet = f"10.78.{run_id % 250 + 1}.0/24"
        self.net = None
        self.nodes = []
        self.small_disk = None  # (node, path): the Redis whose disk can be filled

    def prepare(self):
        """A fresh copy of the example's configs: the run starts with empty
        stores. A deployment an earlier run left up in this folder is taken
        down first (its namespaces are recorded in its folder)."""
        if (self.configs / "data" / "netns" / "netns.json").exists():
            self.down()
        self.unmount()
        shutil.rmtree(self.work, ignore_errors=True)
        self.configs.mkdir(parents=True)
        for f in EXAMPLE.glob("*.toml"):
            shutil.copy(f, self.configs / f.name)

    def up(self):
        with quiet(self.log):
            self.net = cluster.Netns(self.configs, self.prefix, self.subnet)
            self.nodes = self.net.nodes(self.configs)
            self.mount_small_disk()
            cluster.up(self.nodes, self.configs, net=self.net)
        # Restarts must not rebuild the binaries the run is using.
        os.environ["SIMSYNC_NO_BUILD"] = "1"

    def restart_missing(self):
        """Starts every process of the deployment that is not running, as
        `tools/cluster up` does after a crash."""
        reap()
        with quiet(self.log):
            cluster.start_missing(self.nodes)

    def down(self):
        with quiet(self.log):
            net = cluster.Netns(self.configs, None, None)
            cluster.down(net.nodes(self.configs), net)
        self.unmount()

    def mount_small_disk(self):
        """The Redis of the last node (carrier-c's only one) keeps its AOF on
        a tmpfs of its own, so that a fault can fill its disk and nothing
        else's (SMALL_DISK: room for the run's AOF and one rewrite of it)."""
        node = self.nodes[-1]
        path = node.data / "redis"
        path.mkdir(parents=True, exist_ok=True)
        r = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SMALL_DISK},mode=0700",
                            "tmpfs", str(path)], capture_output=True, text=True)
        if r.returncode != 0:
            raise HarnessError(f"cannot mount a tmpfs on {path}: {r.stderr.strip()}")
        self.small_disk = (node, path)

    def unmount(self):
        """Every mount this run's folder holds (one an earlier run left too)."""
        inside = str(self.work) + "/"
        with open("/proc/mounts", encoding="utf-8") as f:
            points = [line.split()[1] for line in f if line.split()[1].startswith(inside)]
        for point in sorted(points, reverse=True):
            subprocess.run(["umount", point], capture_output=True)
        self.small_disk = None

    def carriers(self):
        out = {}
        for node in self.nodes:
            out.setdefault(node.carrier, []).append(node)
        return out

    def admin(self, carrier, method, path, body):
        node = cluster.first_nodes(self.nodes)[carrier]
        with quiet(self.log):
            return cluster.admin(node, method, path, json.dumps(body), net=self.net)

    def sms_code(self, msisdn, sent_before):
        """The code of a message sent to msisdn after the first `sent_before`."""
        messages = cluster.messages_to(self.nodes, msisdn)
        if len(messages) > sent_before:
            return cluster.code_of(messages[-1])
        return None

    def sms_count(self, msisdn):
        return len(cluster.messages_to(self.nodes, msisdn))

    def in_load(self):
        """Where clients run: the deployment's load namespace."""
        return cluster.in_netns(self.net.load)
