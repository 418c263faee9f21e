#!/usr/bin/env python3
"""ctest cluster_rotate_keys: `tools/cluster rotate-keys --drop-old` on a copy
of the three-carrier example moved to free ports, while it runs.

  - carrier-c's keyring is a one-key file (64 hex digits, the form from
    before keyrings), written before `up`: its lookup key is the one carrierd
    derives from key 1, which the rotation must write down before key 1 goes
    (else carrier-c's line ids would move and its line would be lost);
  - one person's lines at carrier-a and carrier-c, registered over HTTP (the
    operator's record through `tools/cluster subscriber`, the code through
    `tools/cluster sms`); a book uploaded at carrier-a, pending at carrier-c;
    every peer link's outbox empty (what it holds counts as left under a key);
  - `rotate-keys --drop-old` exits 0, and then: each carrier's keyring holds
    only its new key 2, as writer, with the lookup key it had, mode 0600, no
    <file>.new beside it; the line at carrier-a reads its book as uploaded and
    the line at carrier-c still has it pending; each node's GET /admin/keys
    says writer 2, keys [2], a finished pass and nothing left; carrier-a's and
    carrier-c's passes re-sealed something;
  - carrier-c stopped (SIGSTOP), a changed book uploaded at carrier-a waits
    in carrier-a's outbox for it: `rotate-keys --drop-old carrier-a` drops
    key 2 all the same (the entries name their cards, which the pass sealed
    again with key 3 where they are), leaving key 3 alone in the file; once
    carrier-c runs again the outbox empties and carrier-c's line has the
    change pending.

`down` afterwards whatever happened. SIMSYNC_BUILD_DIR names the build that
holds carrierd."""

import hashlib
import hmac
import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

from example_deployment import (CLUSTER, Failure, copy_with_free_ports, expect,
                                expect_data_keys, http, ok_json, register, resident_id, run,
                                show_carrierd_logs, wait)

CARDS = 12


def book():
    return "".join(f"BEGIN:VCARD\r\nVERSION:3.0\r\nUID:rotate-{i:02}\r\nFN:Rotated {i}\r\n"
                   f"N:{i};Rotated;;;\r\nTEL;TYPE=CELL:+8613900000{i:03}\r\nEND:VCARD\r\n"
                   for i in range(CARDS))


def ring_of(path):
    return tomllib.loads(path.read_text())


def test(folder):
    seal = {c: folder / f"{c}.seal.key" for c in ("carrier-a", "carrier-b", "carrier-c")}
    for carrier, path in seal.items():
        named = tomllib.loads((folder / f"{carrier}.toml").read_text())["seal_key_file"]
        expect(folder / named == path, f"{carrier}.toml names {named}, not {path.name}")
    one_key = secrets.token_hex(32)
    seal["carrier-c"].write_text(one_key + "\n")
    seal["carrier-c"].chmod(0o600)
    run([sys.executable, CLUSTER, "up", "--configs", folder], timeout=120)
    status = json.loads(run([sys.executable, CLUSTER, "status", "--json",
                             "--configs", folder]).stdout)
    carriers = {c["id"]: c for c in status["carriers"]}
    admin_key = {c: Path(carriers[c]["admin_key_file"]).read_text().strip() for c in carriers}

    def keys_of(carrier, node):
        status_, text, _ = http("GET", f"{node['admin']}/admin/keys", token=admin_key[carrier])
        expect(status_ == 200, f"GET /admin/keys of {carrier}/{node['id']}: {status_} {text}"
                               " (carrierd without the key rotation endpoints?)")
        return json.loads(text)

    for carrier, c in carriers.items():
        for node in c["nodes"]:
            ring = keys_of(carrier, node)
            expect(ring["writer"] == 1 and ring["keys"] == [1],
                   f"{carrier}/{node['id']} before the rotation: {ring}")
    lookup = {c: ring_of(p).get("lookup") for c, p in seal.items() if c != "carrier-c"}
    lookup["carrier-c"] = hmac.new(bytes.fromhex(one_key), b"simsync lookup key v1",
                                   hashlib.sha256).hexdigest()

    # A person's lines at carrier-a and carrier-c; a book uploaded at carrier-a.
    name, id_number = "Rotation Person", resident_id()
    line_a = "+86138" + "".join(random.choice("0123456789") for _ in range(8))
    line_c = "+86186" + "".join(random.choice("0123456789") for _ in range(8))
    gateway_a, gateway_c = carriers["carrier-a"]["gateway"], carriers["carrier-c"]["gateway"]
    token_a = register(folder, "carrier-a", gateway_a, line_a, name, id_number)["token"]
    token_c = register(folder, "carrier-c", gateway_c, line_c, name, id_number)["token"]
    uploaded = ok_json("PUT", f"{gateway_a}/v1/lines/{line_a}/contacts?scope=shared",
                       book(), token_a, "text/vcard")
    expect(uploaded.get("added") == CARDS, f"upload at carrier-a: {uploaded}")
    wait(f"{CARDS} cards pending for the line at carrier-c",
         lambda: ok_json("POST", f"{gateway_c}/v1/lines/{line_c}/update",
                         token=token_c).get("added") == CARDS)

    def outboxes_empty(only=None):
        for carrier, c in carriers.items():
            if only and carrier != only:
                continue
            for node in c["nodes"]:
                status_, text, _ = http("GET", f"{node['admin']}/admin/actors")
                if status_ != 200 or any(link.get("outbox") for link in
                                         json.loads(text).get("links", [])):
                    return False
        return True
    wait("every peer link's outbox emptying", outboxes_empty)

    rotated = run([sys.executable, CLUSTER, "rotate-keys", "--drop-old", "--configs", folder],
                  timeout=180)
    print(rotated.stdout, end="")
    for carrier in carriers:
        expect(f"cluster: {carrier}: key 1 dropped" in rotated.stdout,
               f"rotate-keys did not drop {carrier}'s key 1:\n{rotated.stdout}")

    # The files: the new key alone, as writer; the lookup key as it was.
    expect_data_keys(sorted(folder.glob("*.toml")))
    for carrier, path in seal.items():
        ring = ring_of(path)
        expect(ring["writer"] == 2 and list(ring["keys"]) == ["2"],
               f"{path} after the rotation: writer {ring['writer']}, keys {list(ring['keys'])}")
        expect(ring["keys"]["2"] != one_key, f"{path}: key 2 is the old key 1")
        expect(ring["lookup"] == lookup[carrier], f"{path}: the lookup key changed")
        mode = path.stat().st_mode & 0o777
        expect(mode == 0o600, f"{path} is mode {mode:o}, not 600")
        expect(not path.with_name(path.name + ".new").exists(), f"{path}.new was left")

    # The lines still read what was stored before the rotation.
    status_, cards, _ = http("GET", f"{gateway_a}/v1/lines/{line_a}/contacts?scope=shared",
                          token=token_a)
    expect(status_ == 200, f"reading the line at carrier-a: {status_} {cards}")
    expect(cards.count("BEGIN:VCARD") == CARDS and all(f"FN:Rotated {i}\r\n" in cards
                                                       for i in range(CARDS)),
           f"the line at carrier-a reads, after the rotation:\n{cards}")
    pending = ok_json("GET", f"{gateway_c}/v1/lines/{line_c}/pending", token=token_c)
    expect(pending.get("added") == CARDS and pending.get("cards", "").count("BEGIN:VCARD")
           == CARDS, f"the line at carrier-c's pending, after the rotation: {pending}")

    # Every node: the new ring, and a last pass that found everything sealed
    # with it, after one that re-sealed what key 1 had sealed.
    for carrier, c in carriers.items():
        for node in c["nodes"]:
            ring = keys_of(carrier, node)
            reseal = ring["reseal"]
            expect(ring["writer"] == 2 and ring["keys"] == [2] and reseal["clean"]
                   and reseal["passes"] >= 1 and not any(reseal["left"].values()),
                   f"GET /admin/keys of {carrier}/{node['id']}: {ring}")
            resealed = [int(n) for n in re.findall(
                rf"cluster: {carrier}/{node['id']}: re-seal done: scanned \d+, resealed (\d+)",
                rotated.stdout)]
            if carrier != "carrier-b":  # carrier-b holds nothing of this person
                expect(sum(resealed) > 0, f"{carrier}/{node['id']} re-sealed nothing:\n"
                                          f"{rotated.stdout}")
    print("cluster_rotate_keys: every carrier's data is sealed with its key 2 alone; "
          "the lines read their contacts")
    return {"carriers": carriers, "outboxes_empty": outboxes_empty, "seal": seal,
            "line_a": (gateway_a, line_a, token_a), "line_c": (gateway_c, line_c, token_c)}


def rotate_carrier_a(folder):
    r = run([sys.executable, CLUSTER, "rotate-keys", "--drop-old", "carrier-a",
             "--configs", folder], timeout=120)
    print(r.stdout, end="")
    return r.stdout


def test_peer_down(folder, deployment, stopped):
    """Outbox entries waiting for a peer that is down keep no key: they name
    their cards, which the re-seal pass sealed again where they are, so the
    old key goes at once and the entries still reach the peer."""
    carriers, seal = deployment["carriers"], deployment["seal"]["carrier-a"]
    gateway_a, line_a, token_a = deployment["line_a"]
    gateway_c, line_c, token_c = deployment["line_c"]
    pid = carriers["carrier-c"]["nodes"][0]["pid"]
    os.kill(pid, signal.SIGSTOP)
    stopped.append(pid)
    changed = book().replace("FN:Rotated 0\r\n", "FN:Rotated zero\r\n")
    uploaded = ok_json("PUT", f"{gateway_a}/v1/lines/{line_a}/contacts?scope=shared",
                       changed, token_a, "text/vcard")
    expect(uploaded.get("changed") == 1, f"upload at carrier-a: {uploaded}")
    wait("the change waiting in carrier-a's outbox for the stopped carrier-c",
         lambda: not deployment["outboxes_empty"]("carrier-a"))
    out = rotate_carrier_a(folder)
    expect("cluster: carrier-a: key 2 dropped" in out,
           f"rotate-keys kept key 2 for outbox entries that name their cards:\n{out}")
    ring = ring_of(seal)
    expect(ring["writer"] == 3 and list(ring["keys"]) == ["3"],
           f"{seal} with carrier-c down: writer {ring['writer']}, keys {list(ring['keys'])}")
    os.kill(pid, signal.SIGCONT)
    stopped.remove(pid)
    wait("every peer link's outbox emptying once carrier-c runs again",
         deployment["outboxes_empty"])
    pending = ok_json("GET", f"{gateway_c}/v1/lines/{line_c}/pending", token=token_c)
    expect("FN:Rotated zero" in pending.get("cards", ""),
           f"the change made while carrier-c was stopped is not pending there: {pending}")
    print("cluster_rotate_keys: key 2 went while carrier-c was down; what waited for it "
          "arrived, sealed with key 3")


def main():
    folder = Path(tempfile.mkdtemp(prefix="simsync-cluster-rotate-"))
    stopped = []  # a carrierd this test stopped (SIGSTOP): continued before `down`
    try:
        copy_with_free_ports(folder)
        test_peer_down(folder, test(folder), stopped)
        return 0
    except Failure as e:
        print(f"cluster_rotate_keys: FAILED: {e}", file=sys.stderr)
        show_carrierd_logs(folder)
        return 1
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
        subprocess.run([sys.executable, CLUSTER, "down", "--configs", folder],
                       stdout=subprocess.DEVNULL)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
