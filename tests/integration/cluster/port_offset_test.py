#!/usr/bin/env python3
"""ctest cluster_port_offset: a second deployment of the same folder beside
the first with `tools/cluster --port-offset N`. On a copy of the
three-carrier example moved to free ports: `up`, then `up --port-offset N`;
both run at once (their own pids, Redis and data), each node of the second
answers /healthz on its admin port plus N, `status --port-offset N` lists
the second and `status --configs <configs>/data/offset-N` too (how a client
finds it); `down --port-offset N` stops the second only. `down` of both
afterwards whatever happened. SIMSYNC_BUILD_DIR names the build that holds
carrierd."""

import json
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from example_deployment import CLUSTER, Failure, copy_with_free_ports, expect

OFFSET = 7


def cluster(*args):
    r = subprocess.run([sys.executable, CLUSTER, *map(str, args)], capture_output=True,
                       text=True, timeout=180)
    return r


def status(*args):
    r = cluster("status", "--json", *args)
    expect(r.returncode == 0, f"status {args} failed: {r.stderr}")
    return [n for c in json.loads(r.stdout)["carriers"] for n in c["nodes"]]


def main():
    folder = Path(tempfile.mkdtemp(prefix="simsync-port-offset-"))
    moved = folder / "data" / f"offset-{OFFSET}"
    try:
        copy_with_free_ports(folder, offsets=(0, OFFSET))
        for args in (("up",), ("up", "--port-offset", OFFSET)):
            r = cluster(*args, "--configs", folder)
            expect(r.returncode == 0, f"{' '.join(map(str, args))} failed:\n{r.stdout}{r.stderr}")
        first, second = status("--configs", folder), status("--configs", folder,
                                                             "--port-offset", OFFSET)
        expect(all(n["up"] for n in first + second), f"not all up: {first} {second}")
        expect(not {n["pid"] for n in first} & {n["pid"] for n in second},
               "the second deployment's carrierd are the first's")
        for a, b in zip(first, second):
            port = lambda url: int(url.rsplit(":", 1)[1])
            expect(port(b["admin"]) == port(a["admin"]) + OFFSET, f"{a['admin']} {b['admin']}")
            with urllib.request.urlopen(f"{b['admin']}/healthz", timeout=10) as r:
                expect(r.status == 200, f"{b['admin']}/healthz: {r.status}")
        expect([n["pid"] for n in status("--configs", moved)] == [n["pid"] for n in second],
               f"--configs {moved} does not find the second deployment")
        r = cluster("down", "--configs", folder, "--port-offset", OFFSET)
        expect(r.returncode == 0, f"down --port-offset failed: {r.stderr}")
        expect(all(n["up"] for n in status("--configs", folder)), "down of the second stopped the first")
        expect(not any(n["up"] for n in status("--configs", folder, "--port-offset", OFFSET)),
               "the second still runs after its down")
        print(f"cluster_port_offset: two deployments of one folder ran side by side "
              f"(ports +{OFFSET}); each stopped alone")
        return 0
    except Failure as e:
        print(f"cluster_port_offset: FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        cluster("down", "--configs", folder, "--port-offset", OFFSET)
        cluster("down", "--configs", folder)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
