#!/usr/bin/env python3
"""ctest cluster_taken_port: `tools/cluster up` cannot be fooled by a port
that another process holds. On a copy of the three-carrier example moved to
free ports, the test itself listens on carrier-a's Redis port before `up`:
`up` must fail naming that port, start no carrierd for carrier-a (which would
have used the foreign "Redis"), and leave nothing of carrier-a running. Then,
the port released, `up` starts everything. `down` afterwards whatever
happened. SIMSYNC_BUILD_DIR names the build that holds carrierd."""

import json
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

from example_deployment import CLUSTER, Failure, copy_with_free_ports, expect


def cluster(folder, *args):
    return subprocess.run([sys.executable, CLUSTER, *args, "--configs", str(folder)],
                          capture_output=True, text=True, timeout=180)


def main():
    folder = Path(tempfile.mkdtemp(prefix="simsync-taken-port-"))
    try:
        copy_with_free_ports(folder)
        port = int(re.search(r'(?m)^address = "127\.0\.0\.1:(\d+)"',
                             (folder / "carrier-a.toml").read_text()).group(1))
        with socket.socket() as squatter:
            squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            squatter.bind(("127.0.0.1", port))
            squatter.listen()
            up = cluster(folder, "up")
            said = up.stdout + up.stderr
            expect(up.returncode != 0, f"up succeeded with {port} taken:\n{said}")
            expect(f"127.0.0.1:{port} is taken by a process this deployment did not start"
                   in said, f"up did not name the taken port {port}:\n{said}")
            status = json.loads(cluster(folder, "status", "--json").stdout)
            for carrier in status["carriers"]:
                for node in carrier["nodes"]:
                    if carrier["id"] == "carrier-a":
                        expect(not node.get("pid") and not node.get("redis_pid"),
                               f"carrier-a runs something after the refused up: {node}")
        up = cluster(folder, "up")
        expect(up.returncode == 0, f"up failed once the port was free:\n{up.stdout}{up.stderr}")
        print("cluster_taken_port: the taken port was refused by name; up ran once it was free")
        return 0
    except Failure as e:
        print(f"cluster_taken_port: FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        subprocess.run([sys.executable, CLUSTER, "down", "--configs", str(folder)])
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
