#!/usr/bin/env python3
"""ctest cluster_console: tools/console used as an operator uses it, on the
three-carrier example moved to free ports.

  - a short load: a few persons, added as subscribers (`tools/cluster
    subscriber`), register a line at carrier-a and one at carrier-b over
    HTTP with the code `tools/cluster sms` reads, and books are pushed at
    carrier-a for a few seconds;
  - `console --once --json` shows the three nodes up, each with actors, and a
    rate > 0 on the account_shard that owns a pushed account at carrier-a;
    `console --once` (tables) names every carrier;
  - carrier-b's carrierd is stopped (SIGSTOP) while carrier-a takes pushes:
    `--once --json` still answers in time, shows carrier-b down ("timeout")
    and says carrier-b is behind carrier-a (the link's outbox and lag > 0);
    after SIGCONT it is up again and the outbox drains;
  - carrier-c's carrierd is killed (its pid from `tools/cluster status
    --json`): within 5 s `--once --json` shows it up:false and the other
    carriers' links to carrier-c down;
  - the live view in a tmux session of its own (200x50): `r` and `m` change
    the sort its header shows, Down+Enter opens an actor's detail, Esc goes
    back, `q` quits with status 0.

The tmux session (on a tmux server of this run, its socket in the run's
folder) and the deployment are torn down whatever happened.
SIMSYNC_BUILD_DIR names the build that holds carrierd."""

import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

from example_deployment import (CLUSTER, ROOT, Failure, Unavailable, copy_with_free_ports,
                                expect, expect_pki, ok_json, register, resident_id, run)

CONSOLE = ROOT / "tools" / "console"
RUN = os.getpid()
TMUX = ["tmux"]  # then -S <the test folder>/tmux.sock: a tmux server of our own
SESSION = f"console-{RUN}"


def console(folder, *args):
    return run([sys.executable, CONSOLE, "--configs", folder, "--once", *args], timeout=15)


def console_json(folder):
    return json.loads(console(folder, "--json").stdout)


def node_of(snapshot, carrier):
    found = [n for n in snapshot["nodes"] if n["carrier"] == carrier]
    expect(len(found) == 1, f"console shows {len(found)} nodes of {carrier}: {snapshot}")
    return found[0]


# -- a short load over the terminal API ------------------------------------------

def digits(n):
    return "".join(random.choice("0123456789") for _ in range(n))


def book(round_, persons=5):
    return "".join(
        f"BEGIN:VCARD\r\nVERSION:3.0\r\nUID:console-{i}\r\nFN:Contact {i}\r\n"
        f"N:Contact;{i};;;\r\nTEL;TYPE=CELL:+86139{i:08}\r\nNOTE:round {round_}\r\n"
        "END:VCARD\r\n" for i in range(persons)).encode()


class Pusher(threading.Thread):
    """Pushes a changed book on each line in turn until stopped; a push the
    gateway sheds (a peer carrier too far behind) is retried after Retry-After."""

    def __init__(self, gateway, lines):
        super().__init__(daemon=True)
        self.gateway, self.lines = gateway, lines
        self.stop = threading.Event()
        self.pushed = 0
        self.shed = 0
        self.error = None

    def run(self):
        round_ = 0
        try:
            while not self.stop.is_set():
                round_ += 1
                for msisdn, token in self.lines:
                    try:
                        ok_json("PUT",
                             f"{self.gateway}/v1/lines/{msisdn}/contacts?scope=shared",
                             book(round_), token, "text/vcard")
                        self.pushed += 1
                    except Unavailable as e:
                        self.shed += 1
                        self.stop.wait(e.retry_after_s)
                time.sleep(0.05)
        except Exception as e:
            self.error = e


# -- the test ---------------------------------------------------------------------

def wait_all_up(folder, deadline_s=20):
    deadline = time.monotonic() + deadline_s
    while True:
        snap = console_json(folder)
        if len(snap["nodes"]) == 3 and all(n["up"] for n in snap["nodes"]):
            return snap
        if time.monotonic() > deadline:
            raise Failure("console never showed the three nodes up: "
                          + json.dumps(snap["nodes"], indent=1)[:3000])
        time.sleep(0.3)


def test(folder):
    run([sys.executable, CLUSTER, "up", "--configs", folder], timeout=120)
    expect_pki(folder)  # up made the TLS and signing files in the test's folder
    status = json.loads(run([sys.executable, CLUSTER, "status", "--json",
                             "--configs", folder]).stdout)
    carriers = [c["id"] for c in status["carriers"]]
    expect(carriers == ["carrier-a", "carrier-b", "carrier-c"], f"carriers {carriers}")

    # 1. every node shows up, each with its actors
    snap = wait_all_up(folder)
    for n in snap["nodes"]:
        expect(n["actors"], f"{n['carrier']}/{n['node']} shows no actors")
        expect(n["links"], f"{n['carrier']}/{n['node']} shows no links")
        for a in n["actors"]:
            for field in ("name", "kind", "mailbox", "processed", "rate"):
                expect(field in a, f"actor without {field}: {a}")
    print("console: three nodes up, each with actors and links")

    # 2. a short load: three persons, a line each at carrier-a and carrier-b;
    # books pushed at carrier-a
    gateways = {c["id"]: c["gateway"] for c in status["carriers"]}
    shards = tomllib.loads((folder / "carrier-a.toml").read_text())["shards"]
    lines, owners = [], set()
    for i in range(3):
        name, id_number = f"Console Person {i}", resident_id()
        msisdn = f"+86138{digits(8)}"
        a = register(folder, "carrier-a", gateways["carrier-a"], msisdn, name, id_number)
        b = register(folder, "carrier-b", gateways["carrier-b"], f"+86186{digits(8)}", name,
                     id_number)
        expect(a["idcode"] == b["idcode"], "the two lines' idcodes differ")
        lines.append((msisdn, a["token"]))
        owners.add(int(a["idcode"][:8], 16) % shards)
    pusher = Pusher(gateways["carrier-a"], lines)
    pusher.start()
    try:
        # the rate covers the last second: read it over a few refreshes
        deadline = time.monotonic() + 15
        seen = {}
        while True:
            expect(pusher.error is None, f"pushing failed: {pusher.error}")
            node = node_of(console_json(folder), "carrier-a")
            expect(node["up"], f"carrier-a is down under load: {node.get('error')}")
            for a in node["actors"]:
                if a["kind"] == "account_shard" and a.get("shard") in owners:
                    seen[a["shard"]] = max(seen.get(a["shard"], 0), a["rate"])
            if any(rate > 0 for rate in seen.values()):
                break
            if time.monotonic() > deadline:
                raise Failure(f"no rate > 0 on carrier-a's shards {sorted(owners)} after "
                              f"{pusher.pushed} pushes: {node['actors']}")
            time.sleep(0.3)
        print(f"console: carrier-a account_shard rates {seen} (owners {sorted(owners)}, "
              f"{pusher.pushed} pushes so far)")
        table = console(folder).stdout
        for c in carriers:
            expect(c in table, f"`console --once` does not mention {c}:\n{table}")
        for word in ("LINK", "MAILBOX", "RATE/S", "account_shard/", "peer_link/"):
            expect(word in table, f"`console --once` lacks {word}:\n{table}")
        print("console --once (tables) names every carrier:\n"
              + "\n".join(table.splitlines()[:12]))
    finally:
        pusher.stop.set()
        pusher.join(15)

    # 3. carrier-b stops answering (SIGSTOP) while carrier-a takes pushes: the
    # console still answers at once, shows carrier-b down (timeout) and says
    # carrier-b is behind carrier-a, with the link's outbox and lag; then it
    # catches up
    stalled(folder, status, gateways, lines)

    # 4. kill carrier-c's carrierd: shown down within 5 s, and the others'
    # links to it down
    victim = next(c for c in status["carriers"] if c["id"] == "carrier-c")["nodes"][0]
    expect(victim["pid"], f"no carrierd pid for carrier-c in {victim}")
    os.kill(victim["pid"], signal.SIGKILL)
    killed = time.monotonic()
    while True:
        snap = console_json(folder)
        c = node_of(snap, "carrier-c")
        links = {n["carrier"]: next((l for l in n["links"] if l["peer"] == "carrier-c"), None)
                 for n in snap["nodes"] if n["carrier"] != "carrier-c"}
        others_up = all(node_of(snap, x)["up"] for x in ("carrier-a", "carrier-b"))
        if (not c["up"] and others_up and
                all(l is not None and l["state"] == "down" for l in links.values())):
            break
        if time.monotonic() - killed > 5:
            raise Failure(f"5 s after the kill: carrier-c up={c['up']} "
                          f"({c.get('error')}), links to it {links}")
        time.sleep(0.2)
    elapsed = time.monotonic() - killed
    expect(c["error"], f"carrier-c down without a reason: {c}")
    print(f"console: carrier-c down ({c['error']}) and links to it down "
          f"{elapsed:.1f} s after the kill")
    table = console(folder).stdout
    expect("DOWN" in table and "carrier-c" in table, f"the table hides carrier-c:\n{table}")

    # 5. the live view, driven in tmux
    live(folder)


def stalled(folder, status, gateways, lines):
    pid = next(c for c in status["carriers"] if c["id"] == "carrier-b")["nodes"][0]["pid"]
    expect(pid, "no carrierd pid for carrier-b")
    os.kill(pid, signal.SIGSTOP)
    pusher = Pusher(gateways["carrier-a"], lines)
    try:
        pusher.start()
        stopped = time.monotonic()
        while True:
            expect(pusher.error is None, f"pushing failed: {pusher.error}")
            started = time.monotonic()
            snap = console_json(folder)
            took = time.monotonic() - started
            expect(took < 5, f"`console --once --json` took {took:.1f} s with a node hung")
            b, a = node_of(snap, "carrier-b"), node_of(snap, "carrier-a")
            link = next((l for l in a["links"] if l["peer"] == "carrier-b"), {})
            behind = [s for s in snap["attention"] if s.startswith("carrier-b is behind carrier-a")]
            if (not b["up"] and b["error"] == "timeout" and link.get("outbox", 0) > 0
                    and link.get("lag_ms", 0) > 0 and behind):
                break
            if time.monotonic() - stopped > 10:
                raise Failure(f"10 s into carrier-b's stall: carrier-b up={b['up']} "
                              f"({b.get('error')}), carrier-a's link {link}, "
                              f"attention {snap['attention']}")
            time.sleep(0.3)
        print(f"console: carrier-b hung -> {b['error']}; {behind[0]}")
    finally:
        pusher.stop.set()
        pusher.join(15)
        os.kill(pid, signal.SIGCONT)
    deadline = time.monotonic() + 20
    while True:
        snap = console_json(folder)
        b, a = node_of(snap, "carrier-b"), node_of(snap, "carrier-a")
        link = next((l for l in a["links"] if l["peer"] == "carrier-b"), {})
        # once up again, the link no longer shows why it was down
        if (b["up"] and link.get("outbox") == 0 and link.get("state") == "up"
                and not link.get("last_error")):
            break
        if time.monotonic() > deadline:
            raise Failure(f"carrier-b never caught up (or its link keeps an old error): "
                          f"up={b['up']}, link {link}")
        time.sleep(0.3)
    print("console: carrier-b answers again and carrier-a's outbox to it is empty")


def capture():
    return run([*TMUX, "capture-pane", "-p", "-t", SESSION], timeout=10).stdout


def wait_screen(what, test, timeout=6):
    deadline = time.monotonic() + timeout
    while True:
        screen = capture()
        if test(screen):
            return screen
        if time.monotonic() > deadline:
            raise Failure(f"the live view never showed {what}; screen:\n{screen}")
        time.sleep(0.2)


def keys(*k):
    run([*TMUX, "send-keys", "-t", SESSION, *k], timeout=10)


def live(folder):
    done = folder / "console.exit"
    command = (f"{sys.executable} {CONSOLE} --configs {folder} 2>{folder}/console.err; "
               f"echo $? > {done}")
    run([*TMUX, "new-session", "-d", "-s", SESSION, "-x", "200", "-y", "50", command],
        timeout=10)
    header = lambda s: s.splitlines()[0] if s.strip() else ""
    screen = wait_screen("its header and actors",
                         lambda s: "sort: mailbox" in header(s) and "account_shard/" in s)
    expect("nodes 2/3 up" in header(screen), f"header: {header(screen)}")
    expect("DOWN" in screen, f"the killed node is not shown down:\n{screen}")
    print("live view:\n" + "\n".join(screen.splitlines()[:8]))
    keys("r")
    wait_screen("sort: rate after r", lambda s: "sort: rate" in header(s))
    keys("m")
    wait_screen("sort: mailbox after m", lambda s: "sort: mailbox" in header(s))
    keys("t")
    wait_screen("sort: time after t", lambda s: "sort: time" in header(s))
    keys("Down", "Enter")
    screen = wait_screen("an actor's detail after Enter",
                         lambda s: "(Esc: back)" in s and "last_error" in s)
    keys("Escape")
    wait_screen("the list again after Esc",
                lambda s: "(Esc: back)" not in s and "MAILBOX" in s)
    keys("c")
    wait_screen("a carrier filter after c", lambda s: "carrier=carrier-a" in header(s))
    keys("q")
    deadline = time.monotonic() + 5
    while not done.exists() or not done.read_text().strip():
        if time.monotonic() > deadline:
            raise Failure(f"the live view did not exit after q; screen:\n{capture()}")
        time.sleep(0.1)
    err = (folder / "console.err").read_text()
    expect(done.read_text().strip() == "0",
           f"the live view exited {done.read_text().strip()}: {err}")
    print("live view: r, m, t changed the sort; Enter opened a detail; q quit (status 0)")


def main():
    if shutil.which("tmux") is None:
        print("cluster_console: tmux is not installed (tools/setup installs it)",
              file=sys.stderr)
        return 1
    folder = Path(tempfile.mkdtemp(prefix="simsync-cluster-console-"))
    try:
        TMUX.extend(["-S", str(folder / "tmux.sock")])  # goes with the folder
        copy_with_free_ports(folder)
        test(folder)
        print("cluster_console: passed")
        return 0
    except Failure as e:
        print(f"cluster_console: FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        subprocess.run([*TMUX, "kill-session", "-t", SESSION], capture_output=True)
        subprocess.run([sys.executable, CLUSTER, "down", "--configs", folder])
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
