#!/usr/bin/env python3
"""ctest cluster_demo: `tools/cluster demo` on a copy of the three-carrier
example whose ports are free ones, so it runs beside anything else on this
machine; `down` afterwards whatever happened. SIMSYNC_BUILD_DIR names the
build that holds carrierd and phone."""

import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "config" / "examples" / "three-carriers"
CLUSTER = ROOT / "tools" / "cluster"


def free_ports(count):
    # Held open together so that the count ports differ.
    sockets = [socket.socket() for _ in range(count)]
    try:
        for s in sockets:
            s.bind(("127.0.0.1", 0))
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


def copy_with_free_ports(folder):
    tomls = sorted(EXAMPLE.glob("*.toml"))
    text = {t.name: t.read_text() for t in tomls}
    ports = sorted({p for t in text.values() for p in re.findall(r"127\.0\.0\.1:(\d+)", t)})
    mapping = dict(zip(ports, map(str, free_ports(len(ports)))))
    for name, t in text.items():
        t = re.sub(r"127\.0\.0\.1:(\d+)", lambda m: "127.0.0.1:" + mapping[m.group(1)], t)
        (folder / name).write_text(t)
    for key in EXAMPLE.glob("*.key"):
        shutil.copy(key, folder / key.name)


def main():
    folder = Path(tempfile.mkdtemp(prefix="simsync-cluster-demo-"))
    try:
        copy_with_free_ports(folder)
        # The demo leaves its phones' folder for a person to look at; here it
        # goes with the test's folder.
        env = dict(os.environ, TMPDIR=str(folder))
        demo = subprocess.run([sys.executable, CLUSTER, "demo", "--configs", folder], env=env)
        return demo.returncode
    finally:
        subprocess.run([sys.executable, CLUSTER, "down", "--configs", folder])
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
