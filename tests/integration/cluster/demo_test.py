#!/usr/bin/env python3
"""ctest cluster_demo: `tools/cluster demo` on a copy of the three-carrier
example whose ports are free ones, so it runs beside anything else on this
machine (its TLS and signing files made by `up` in the copy's pki/, checked
afterwards); `down` afterwards whatever happened. SIMSYNC_BUILD_DIR names the
build that holds carrierd and phone."""

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from example_deployment import CLUSTER, Failure, copy_with_free_ports, expect_pki


def main():
    folder = Path(tempfile.mkdtemp(prefix="simsync-cluster-demo-"))
    try:
        copy_with_free_ports(folder)
        # The demo leaves its phones' folder for a person to look at; here it
        # goes with the test's folder.
        env = dict(os.environ, TMPDIR=str(folder))
        demo = subprocess.run([sys.executable, CLUSTER, "demo", "--configs", folder], env=env)
        if demo.returncode == 0:
            expect_pki(folder)
        return demo.returncode
    except Failure as e:
        print(f"cluster_demo: FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        subprocess.run([sys.executable, CLUSTER, "down", "--configs", folder])
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
