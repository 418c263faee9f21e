#!/usr/bin/env python3
"""ctest cluster_redis_password: the rotation of a carrier's Redis passwords
as config/examples/README.md tells an operator to do it, step by step, on a
copy of the three-carrier example moved to free ports, while it serves.

  - one person's lines at carrier-a and carrier-b, registered over HTTP; a
    book uploaded at carrier-a reaches carrier-b's line (pending there);
  - carrierd's password: `mv` it to <file>.old, `tools/cluster up`: a new
    password file (mode 600, a different password), and carrier-a's
    users.acl holds both hashes; `ACL LOAD` (redis-cli as the operator, the
    password in REDISCLI_AUTH): both passwords log in, and carrier-a still
    takes an upload that reaches carrier-b (carrierd reconnected with the old
    one);
  - carrier-a's carrierd restarted (SIGTERM to its pid, `up`): it serves with
    the new password;
  - `rm` the .old file, `up`, `ACL LOAD`: the old password is refused
    (WRONGPASS), the new one logs in, and an upload at carrier-a still
    reaches carrier-b;
  - the operator's password: a new .operator file, `up`, `ACL LOAD` with the
    old one: the old one is refused, the new one logs in, carrierd serves.

`down` afterwards whatever happened. SIMSYNC_BUILD_DIR names the build that
holds carrierd."""

import hashlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from example_deployment import (CLUSTER, Failure, copy_with_free_ports, expect, ok_json,
                                register, resident_id, run, show_carrierd_logs, wait)

CARDS = 5


def book(round_):
    return "".join(f"BEGIN:VCARD\r\nVERSION:3.0\r\nUID:password-{i}\r\nFN:Contact {i}\r\n"
                   f"N:Contact;{i};;;\r\nTEL;TYPE=CELL:+86139000{i:05}\r\n"
                   f"NOTE:round {round_}\r\nEND:VCARD\r\n" for i in range(CARDS))


def secret_of(path):
    """A password file's password: its text without the final newline."""
    text = Path(path).read_text()
    return text[:-1] if text.endswith("\n") else text


def redis_cli(port, user, password, *command):
    """redis-cli as the operator runs it: the password in the environment,
    never on the command line. (exit status, stdout + stderr)."""
    r = run(["redis-cli", "-h", "127.0.0.1", "-p", port, "--user", user, "--no-auth-warning",
             *command], check=False, env={**os.environ, "REDISCLI_AUTH": password})
    return r.returncode, (r.stdout + r.stderr).strip()


def logs_in(port, user, password):
    """Whether Redis at port lets user in with password (PING answers PONG);
    any other answer than PONG or WRONGPASS fails the test."""
    _, out = redis_cli(port, user, password, "PING")
    expect(out == "PONG" or "WRONGPASS" in out, f"PING on {port} as {user}: {out!r}")
    return out == "PONG"


def acl_load(ports, operator_password):
    for port in ports:
        status, out = redis_cli(port, "operator", operator_password, "ACL", "LOAD")
        expect(status == 0 and out == "OK", f"ACL LOAD on {port}: {out!r}")


def up(folder):
    run([sys.executable, CLUSTER, "up", "--configs", folder], timeout=120)
    return {c["id"]: c for c in json.loads(run([sys.executable, CLUSTER, "status", "--json",
                                                "--configs", folder]).stdout)["carriers"]}


def test(folder):
    carriers = up(folder)
    a_nodes = carriers["carrier-a"]["nodes"]
    ports = [n["redis"].rsplit(":", 1)[1] for n in a_nodes]
    acls = sorted((folder / "data").glob("carrier-a*/**/redis/users.acl"))
    expect(len(acls) == len(a_nodes), f"carrier-a's ACL files: {acls}")
    password_file = folder / "carrier-a.redis.password"
    operator_file = folder / "carrier-a.redis.password.operator"
    operator = secret_of(operator_file)

    name, id_number = "Password Person", resident_id()
    line_a, line_b = f"+86138{secrets.randbelow(10**8):08}", f"+86186{secrets.randbelow(10**8):08}"
    gateway_a, gateway_b = carriers["carrier-a"]["gateway"], carriers["carrier-b"]["gateway"]
    token_a = register(folder, "carrier-a", gateway_a, line_a, name, id_number)["token"]
    token_b = register(folder, "carrier-b", gateway_b, line_b, name, id_number)["token"]

    def serves(round_):
        """carrier-a takes an upload, and it reaches carrier-b's line."""
        ok_json("PUT", f"{gateway_a}/v1/lines/{line_a}/contacts?scope=shared",
                book(round_), token_a, "text/vcard")

        def pending_there():
            ok_json("POST", f"{gateway_b}/v1/lines/{line_b}/update", token=token_b)
            cards = ok_json("GET", f"{gateway_b}/v1/lines/{line_b}/pending",
                            token=token_b).get("cards", "")
            return cards.count(f"NOTE:round {round_}\r\n") == CARDS
        wait(f"round {round_} uploaded at carrier-a pending at carrier-b", pending_there)

    serves(1)

    # 1. The old password aside; `up` makes a new one and lists both.
    old = secret_of(password_file)
    password_file.rename(password_file.with_name(password_file.name + ".old"))
    carriers = up(folder)
    new = secret_of(password_file)
    expect(new and new != old, "`up` did not make a new carrierd password")
    mode = password_file.stat().st_mode & 0o777
    expect(mode == 0o600, f"{password_file} is mode {mode:o}, not 600")
    for acl in acls:
        text = acl.read_text()
        for which, password in (("old", old), ("new", new)):
            expect("#" + hashlib.sha256(password.encode()).hexdigest() in text,
                   f"{acl} lacks the {which} password's hash during the rotation")
            expect(password not in text, f"{acl} holds a password in the clear")

    # 2. ACL LOAD: both log in; carrierd reconnects with the old one.
    acl_load(ports, operator)
    for port in ports:
        expect(logs_in(port, "simsync", old) and logs_in(port, "simsync", new),
               f"both passwords do not log in on {port} during the rotation")
    serves(2)

    # 3. carrierd restarted one node at a time: it reads the new password.
    for node in a_nodes:
        os.kill(node["pid"], signal.SIGTERM)
        wait(f"carrier-a/{node['id']} (pid {node['pid']}) exiting",
             lambda: not Path(f"/proc/{node['pid']}").exists())
        carriers = up(folder)
    serves(3)

    # 4. The old password goes.
    password_file.with_name(password_file.name + ".old").unlink()
    up(folder)
    acl_load(ports, operator)
    for port in ports:
        expect(not logs_in(port, "simsync", old), f"the old password still logs in on {port}")
        expect(logs_in(port, "simsync", new), f"the new password does not log in on {port}")
    serves(4)
    print("cluster_redis_password: carrierd's password rotated; the old one is refused")

    # The operator's password.
    new_operator = secrets.token_hex(24)
    replacement = operator_file.with_name(operator_file.name + ".tmp")
    replacement.write_text(new_operator + "\n")
    replacement.chmod(0o600)
    replacement.rename(operator_file)
    up(folder)
    acl_load(ports, operator)
    for port in ports:
        expect(not logs_in(port, "operator", operator),
               f"the operator's old password still logs in on {port}")
        expect(logs_in(port, "operator", new_operator),
               f"the operator's new password does not log in on {port}")
    serves(5)
    print("cluster_redis_password: the operator's password rotated; carrierd serves")


def main():
    folder = Path(tempfile.mkdtemp(prefix="simsync-cluster-password-"))
    try:
        copy_with_free_ports(folder)
        test(folder)
        return 0
    except Failure as e:
        print(f"cluster_redis_password: FAILED: {e}", file=sys.stderr)
        show_carrierd_logs(folder)
        return 1
    finally:
        subprocess.run([sys.executable, CLUSTER, "down", "--configs", folder],
                       stdout=subprocess.DEVNULL)
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
