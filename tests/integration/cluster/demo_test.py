#!/usr/bin/env python3
"""ctest cluster_demo: `tools/cluster demo` on a copy of the three-carrier
example whose ports are free ones, so it runs beside anything else on this
machine; `down` afterwards whatever happened. SIMSYNC_BUILD_DIR names the
build that holds carrierd and phone."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from example_deployment import CLUSTER, copy_with_free_ports


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
