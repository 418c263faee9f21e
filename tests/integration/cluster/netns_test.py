#!/usr/bin/env python3
"""ctest cluster_netns: the three-carrier example with each carrier on a host
of its own (`tools/cluster --netns`), namespace names and subnet unique to
this run, clients in the run's load namespace:

  - every node runs in its own namespace at its own address, and the root
    namespace gets no address or link of the deployment; the configs
    generated for the namespaces name every TLS and signing file by its
    absolute path, and `up` made those files (pki/ of the run's folder);
  - two lines of one person, added as subscribers through the carriers'
    admin ports (`tools/cluster --netns subscriber`) and registered at two
    carriers from the load namespace with tools/phone and the code that
    `tools/cluster --netns sms` reads: a book pushed on one line is pending
    on the other (replication across namespaces), and applies there;
  - when the build has tools/loadtest: a CI-small `loadtest --scenario all`
    from the load namespace, whose JSON must say verified.

Bounded (~90 s, a timeout on every command); `down` and a check that the
run's namespaces are gone happen whatever failed. Exits 77 (ctest SKIP) with
the reason when this machine does not allow network namespaces. Traffic goes
only between this run's namespaces: nothing here connects to the subnet from
the root namespace. SIMSYNC_BUILD_DIR names the build that holds carrierd,
phone and loadtest."""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from example_deployment import (CLUSTER, EXAMPLE, ROOT, Failure, add_subscriber, expect,
                                expect_pki, last_code, named_files, show_carrierd_logs)
from example_deployment import run as run_command
BUILD = Path(os.environ.get("SIMSYNC_BUILD_DIR", ROOT / "build"))
PHONE = BUILD / "tools" / "phone"
LOADTEST = BUILD / "tools" / "loadtest"
SKIP = 77
BUDGET = 90  # seconds for the whole test, teardown included
START = time.monotonic()

RUN = os.getpid() % 100000
PREFIX = f"simsync-ct{RUN}-"
SUBNET = f"10.77.{RUN % 250 + 1}.0/24"


def left(reserve=15):
    """Seconds left for one command, keeping `reserve` for the teardown."""
    return max(1.0, BUDGET - reserve - (time.monotonic() - START))


def run(argv, timeout=None, check=True, teardown=False, **kw):
    """Runs a command within the budget (a teardown command gets its own
    timeout, so that it runs even when the budget is spent)."""
    timeout = timeout if teardown else min(timeout or left(), left())
    return run_command(argv, timeout=timeout, check=check, **kw)


def cluster(folder, *args, timeout=None, check=True, teardown=False):
    return run([sys.executable, CLUSTER, "--netns", "--netns-prefix", PREFIX,
                "--subnet", SUBNET, "--configs", folder, *args],
               timeout=timeout, check=check, teardown=teardown)


def in_load(load, *argv, timeout=None, check=True, cwd=None):
    return run(["ip", "netns", "exec", load, *argv], timeout=timeout, check=check, cwd=cwd)


def netns_unavailable():
    """Why this machine cannot run the test, or None."""
    if os.geteuid() != 0:
        return "network namespaces need root"
    if shutil.which("ip") is None:
        return "iproute2's `ip` is not installed"
    probe = f"{PREFIX}probe"
    r = subprocess.run(["ip", "netns", "add", probe], capture_output=True, text=True,
                       timeout=20)
    if r.returncode != 0:
        return f"`ip netns add` is not permitted here: {r.stderr.strip()}"
    try:
        r = subprocess.run(["ip", "-n", probe, "link", "add", "p0", "type", "veth",
                            "peer", "name", "p1"], capture_output=True, text=True,
                           timeout=20)
        if r.returncode != 0:
            return f"veth links are not permitted here: {r.stderr.strip()}"
    finally:
        subprocess.run(["ip", "netns", "del", probe], capture_output=True, timeout=20)
    return None


def our_namespaces():
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True, timeout=20)
    return [line.split()[0] for line in r.stdout.splitlines()
            if line.startswith(PREFIX)]


def check_layout(folder):
    """Every node up in a namespace of its own at its own address; the load
    namespace listed; nothing of the deployment in the root namespace."""
    status = json.loads(cluster(folder, "status", "--json").stdout)
    nodes = [n for c in status["carriers"] for n in c["nodes"]]
    expect(len(status["carriers"]) == 3 and len(nodes) == 3,
           f"expected three carriers of one node: {status}")
    for c in status["carriers"]:
        for n in c["nodes"]:
            expect(n["up"], f"{c['id']}/{n['id']} is not up: {n}")
            expect(n["netns"] == f"{PREFIX}{c['id']}-{n['id']}", f"netns of {n}")
            host = n["federation"].rsplit(":", 1)[0]
            expect(host.startswith(SUBNET.rsplit(".", 1)[0] + "."),
                   f"{c['id']}/{n['id']} federation {n['federation']} is not in {SUBNET}")
            expect(n["gateway"].startswith(f"http://{host}:"), f"gateway of {n}")
    expect(len({n["netns"] for n in nodes}) == 3, "two nodes share a namespace")
    expect(len({n["federation"].rsplit(":", 1)[0] for n in nodes}) == 3,
           "two nodes share an address")
    for c in status["carriers"]:
        for n in c["nodes"]:
            # A carrier of one node (the example's) has no cluster port; one
            # that has it listens at its own namespace's address.
            cluster_at = n.get("cluster")
            expect(cluster_at is None or cluster_at.rsplit(":", 1)[0] ==
                   n["federation"].rsplit(":", 1)[0], f"cluster address of {n}")
    generated = sorted((folder / "data" / "netns").glob("*.toml"))
    expect(len(generated) == 3, f"--netns generated {len(generated)} configs: {generated}")
    for config in generated:
        for name in named_files(config.read_text()):
            expect(Path(name).is_absolute(),
                   f"{config.name} names {name}: --netns gives every file an absolute path")
    expect_pki(folder, generated)
    load = status["load"]["netns"]
    expect(load == f"{PREFIX}load" and status["load"]["up"], f"load namespace: {status}")
    # The deployment's links and addresses live only in its namespaces.
    root = run(["ip", "-o", "addr"]).stdout
    expect(SUBNET.rsplit(".", 1)[0] + "." not in root,
           f"the root namespace has an address in {SUBNET}:\n{root}")
    # A carrier is not on the load namespace's loopback: it is another host.
    probe = in_load(load, sys.executable, "-c",
                    "import socket,sys; s=socket.socket(); s.settimeout(2); "
                    "sys.exit(s.connect_ex(('127.0.0.1', %s)))"
                    % status["carriers"][0]["gateway"].rsplit(":", 1)[1], check=False)
    expect(probe.returncode != 0, "the load namespace's loopback answers a gateway port")
    print(f"netns: {len(nodes)} nodes in {', '.join(n['netns'] for n in nodes)}; "
          f"clients in {load} ({status['load']['address']})")
    return status


def vcard(i):
    return (f"BEGIN:VCARD\r\nVERSION:3.0\r\nUID:netns-{i:02}\r\nFN:Contact {i}\r\n"
            f"N:{i};Contact;;;\r\nTEL;TYPE=CELL:+86138000000{i:02}\r\nEND:VCARD\r\n")


def check_replication(folder, status):
    """Li's line at carrier-a pushes; Li's line at carrier-b sees it pending."""
    load = status["load"]["netns"]
    gateway = {c["id"]: c["gateway"] for c in status["carriers"]}
    phones = folder / "phones"
    phones.mkdir()
    netns = ["--netns", "--netns-prefix", PREFIX, "--subnet", SUBNET]

    def phone(book, *args, timeout=20, check=True):
        r = in_load(load, PHONE, *args, "--book", book, timeout=timeout, cwd=phones,
                    check=check)
        return r.stdout + (r.stderr if not check else "")

    def register(book, carrier, msisdn, iccid):
        """The operator adds the SIM; the phone asks for a code (nobody types it),
        then registers with the code the carrier texted (--code)."""
        add_subscriber(folder, carrier, msisdn, iccid, "李明", "11010519491231002X",
                       cluster_args=netns, timeout=min(30, left()))
        asked = phone(book, "register", "--gateway", gateway[carrier], "--msisdn", msisdn,
                      "--iccid", iccid, check=False)
        expect(f"code sent by SMS to {msisdn}" in asked, f"register at {carrier}: {asked}")
        code = last_code(folder, msisdn, cluster_args=netns, timeout=min(30, left()))
        return phone(book, "register", "--gateway", gateway[carrier], "--msisdn", msisdn,
                     "--code", code)

    out = register("a.vcf", "carrier-a", "+8613800138000", "89860012345678901234")
    expect("new account" in out, f"register at carrier-a: {out}")
    idcode = out[out.index("(idcode "):]
    out = register("b.vcf", "carrier-b", "+8618600186000", "89860112345678901234")
    expect(idcode in out, f"register at carrier-b: {out} (line A: {idcode})")
    (phones / "a.vcf").write_text("".join(vcard(i) for i in range(1, 6)), newline="")
    out = phone("a.vcf", "push")
    expect("5 added, 0 changed, 0 removed" in out, f"push at carrier-a: {out}")
    wanted = "pending  5 added, 0 changed, 0 removed"
    deadline = time.monotonic() + min(20, left())
    while True:
        out = phone("b.vcf", "status")
        if wanted in out:
            break
        expect(time.monotonic() < deadline,
               f"carrier-b never showed \"{wanted}\" for line B; last status:\n{out}")
        time.sleep(0.2)
    out = phone("b.vcf", "pull", "--apply")
    expect("5 added" in out, f"pull at carrier-b: {out}")
    book = (phones / "b.vcf").read_text()
    expect(book.count("BEGIN:VCARD") == 5, f"line B's book after apply:\n{book}")
    print("netns: a book pushed at carrier-a was pending at carrier-b and applied")


def check_loadtest(folder, status):
    """A CI-small run of every scenario from the load namespace."""
    if not LOADTEST.exists():
        if "loadtest" in (ROOT / "tools" / "CMakeLists.txt").read_text():
            raise Failure(f"{LOADTEST} is not built (tools/CMakeLists.txt has it)")
        print("netns: tools/loadtest is not in this tree yet: load part not run")
        return
    deployment = folder / "deployment.json"
    deployment.write_text(json.dumps(status))
    result = folder / "loadtest.json"
    # CI-small: a few dozen persons and cards, two short rate steps, no
    # redis-benchmark ceiling (that measures this machine, not the network).
    r = in_load(status["load"]["netns"], LOADTEST, "--scenario", "all",
                "--deployment", deployment, "--json", result,
                "--persons", "20", "--cards", "20", "--interactive-persons", "40",
                "--rates", "50,100", "--step-seconds", "2", "--large-cards", "2000",
                "--delta-edits", "20", "--connections", "8", "--timeout-seconds", "20",
                "--no-redis-benchmark", timeout=min(50, left()), check=False)
    expect(result.exists(), f"loadtest wrote no JSON (exit {r.returncode}):\n"
                            f"{r.stdout[-3000:]}{r.stderr[-3000:]}")
    report = json.loads(result.read_text())
    scenarios = report if isinstance(report, list) else [report]
    unverified = [s.get("scenario", "?") for s in scenarios if s.get("verified") is not True]
    expect(r.returncode == 0 and scenarios and not unverified,
           f"loadtest did not verify {unverified} (exit {r.returncode}):\n"
           f"{r.stdout[-3000:]}\n{r.stderr[-2000:]}")
    names = ", ".join(s.get("scenario", "?") for s in scenarios)
    print(f"netns: loadtest --scenario all from the load namespace: verified ({names})")


def main():
    reason = netns_unavailable()
    if reason:
        print(f"SKIP: {reason}")
        return SKIP
    for binary in (BUILD / "tools" / "carrierd", PHONE):
        if not binary.exists():
            print(f"cluster_netns: {binary} is not built", file=sys.stderr)
            return 1
    folder = Path(tempfile.mkdtemp(prefix="simsync-cluster-netns-"))
    failed = None
    try:
        # The example as it is: each node's ports are its own namespace's;
        # its keys are the test's own, made by up.
        for f in EXAMPLE.glob("*.toml"):
            shutil.copy(f, folder / f.name)
        cluster(folder, "up", timeout=60)
        status = check_layout(folder)
        check_replication(folder, status)
        check_loadtest(folder, status)
    except Failure as e:
        failed = str(e)
    finally:
        try:
            down = cluster(folder, "down", timeout=30, check=False, teardown=True)
            if down.returncode != 0 and not failed:
                failed = f"down failed:\n{down.stdout}{down.stderr}"
        except Failure as e:
            failed = failed or str(e)
        leftovers = our_namespaces()
        for name in leftovers:  # only this run's names
            subprocess.run(["ip", "netns", "del", name], capture_output=True, timeout=20)
        if leftovers and not failed:
            failed = f"down left namespaces behind: {leftovers}"
        if failed:
            show_carrierd_logs(folder, "data/netns/*/*/carrierd.log", file=sys.stdout)
        shutil.rmtree(folder, ignore_errors=True)
    if failed:
        print(f"cluster_netns: FAILED: {failed}", file=sys.stderr)
        return 1
    print(f"cluster_netns: passed in {time.monotonic() - START:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
