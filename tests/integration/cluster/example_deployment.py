"""What the cluster ctests share: the three-carrier example copied to a
folder with every port moved to a free one, so that a test's deployment runs
beside anything else on this machine (the example's fixed ports included),
the check that `tools/cluster up` made the TLS and signing files the configs
name (pki/ of the test's folder), running a command whose failure fails the
test, the operator's side of registration (a subscriber record, the code
the carrier texted) and the phone's (HTTP requests, a line registered)."""

import fcntl
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "config" / "examples" / "three-carriers"
CLUSTER = ROOT / "tools" / "cluster"


# The ports this process holds (reserve_for_this_process): open for as long
# as it runs.
_reservations = []


def reserve_for_this_process(port):
    """Holds `port` for this process until it exits, as the C++ tests do
    (tests/support/redis_server.cpp): an exclusive lock on a file named after
    it in /tmp/simsync-test-ports, which every test process asks for before
    taking a port. Tests run side by side (ctest -j), and a port chosen here
    stays unbound until the deployment's servers start, seconds later:
    without the lock, a test of either kind could choose it in between.
    Returns the lock's descriptor (-1 without a shared folder: the bind
    check alone), or None if another process holds the port."""
    folder = "/tmp/simsync-test-ports"
    os.makedirs(folder, exist_ok=True)
    try:
        os.chmod(folder, 0o1777)
    except OSError:
        pass  # another user's folder: it is shared already
    try:
        fd = os.open(f"{folder}/{port}", os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
    except OSError:
        return -1
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_ports(count, offsets=(0,)):
    """count distinct free loopback ports below the kernel's range for outgoing
    connections (a port from that range, what binding port 0 gives, may be
    taken by any process's connect() before the server binds it, which made
    tests running in parallel fail with "Address already in use"), each
    reserved for this process (reserve_for_this_process). With `offsets`, each
    port plus every offset is free and reserved too, and none is another's
    (a deployment moved by `tools/cluster --port-offset` uses them)."""
    with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
        highest = int(f.read().split()[0]) - 1 - max(offsets)
    ports, taken = [], set()
    while len(ports) < count:
        port = random.randint(10000, highest)
        wanted = [port + o for o in offsets]
        if taken & set(wanted) or not all(map(bindable, wanted)):
            continue
        held = []
        for p in wanted:
            fd = reserve_for_this_process(p)
            if fd is None:
                break
            held.append(fd)
        if len(held) < len(wanted):  # another process holds one of them
            for fd in held:
                if fd >= 0:
                    os.close(fd)
            continue
        _reservations.extend(fd for fd in held if fd >= 0)
        taken.update(wanted)
        ports.append(port)
    return sorted(ports)


def named_files(text):
    """The files a node config names (keys ending in _file, in any table or
    array of tables), as written: relative to the config's folder."""
    found = []

    def walk(value):
        if isinstance(value, dict):
            for k, v in value.items():
                if k.endswith("_file") and isinstance(v, str):
                    found.append(v)
                else:
                    walk(v)
        elif isinstance(value, list):
            for v in value:
                walk(v)

    walk(tomllib.loads(text))
    return found


def copy_with_free_ports(folder, example=EXAMPLE, offsets=(0,)):
    """The example's node configs and keys in `folder`, each 127.0.0.1 port
    replaced by a free one (the same port the same everywhere it appears: a
    node's federation and cluster ports in its own file, in its carrier's
    other nodes' files and in its peers'). The example's pki/ is not copied
    (a developer's `tools/cluster up` may have made one there): the configs
    name their TLS and signing files relative to their folder, so `tools/cluster
    up` makes them in `folder`/pki with tools/pki, keys of the test's own. No
    key file is copied either: `up` makes the test's own (expect_data_keys).
    `offsets`: the port offsets the test will run the copy with too
    (`tools/cluster --port-offset`), whose ports are reserved as well."""
    folder = Path(folder)
    tomls = sorted(Path(example).glob("*.toml"))
    text = {t.name: t.read_text() for t in tomls}
    ports = sorted({p for t in text.values() for p in re.findall(r"127\.0\.0\.1:(\d+)", t)})
    mapping = dict(zip(ports, map(str, free_ports(len(ports), offsets))))
    for name, t in text.items():
        t = re.sub(r"127\.0\.0\.1:(\d+)", lambda m: "127.0.0.1:" + mapping[m.group(1)], t)
        expect("localhost:" not in t, f"{example}/{name} names localhost: its port would "
                                      "not be moved (write 127.0.0.1)")
        for path in named_files(t):
            # An absolute path or one out of the folder would be the source
            # tree's file, shared by every run.
            expect(not Path(path).is_absolute() and ".." not in Path(path).parts,
                   f"{example}/{name} names {path}: a test copy needs paths inside its folder")
        (folder / name).write_text(t)


def expect_pki(folder, configs=None):
    """After `tools/cluster up`: every file the folder's configs (or the given
    config files) name exists, and each private key and .pem under pki/ is
    readable by its owner only."""
    folder = Path(folder)
    made = 0
    for config in configs or sorted(folder.glob("*.toml")):
        config = Path(config)
        for name in named_files(config.read_text()):
            path = config.parent / name
            expect(path.is_file(), f"{config.name} names {name}, which `tools/cluster up` "
                                   f"did not make ({path})")
            if "pki" in path.parts and path.suffix in (".key", ".pem"):
                mode = path.stat().st_mode & 0o777
                expect(mode == 0o600, f"{path} is mode {mode:o}, not 600")
                made += 1
    expect(made, f"the configs of {folder} name no private key under pki/")
    expect_redis_acls(folder)
    expect_data_keys(configs or sorted(folder.glob("*.toml")))


def expect_data_keys(configs):
    """After `tools/cluster up`: the keyring file (seal_key_file) and the
    federation key each config names exist, mode 600; a keyring is TOML with a
    64-hex lookup key and a 64-hex writer key in [keys]; the federation key is
    64 hex digits. And git tracks no key file of the examples: they are
    secrets `up` makes, never committed."""
    hex64 = re.compile(r"[0-9a-f]{64}")
    for config in map(Path, configs):
        toml = tomllib.loads(config.read_text())
        keyring, federation = (config.parent / toml[k]
                               for k in ("seal_key_file", "federation_key_file"))
        for path in (keyring, federation):
            expect(path.is_file(), f"`tools/cluster up` did not make {path} ({config.name})")
            mode = path.stat().st_mode & 0o777
            expect(mode == 0o600, f"{path} is mode {mode:o}, not 600")
        expect(hex64.fullmatch(federation.read_text()),
               f"{federation} is not 64 hex digits")
        try:
            ring = tomllib.loads(keyring.read_text())
        except tomllib.TOMLDecodeError as e:
            raise Failure(f"{keyring} is not a TOML keyring: {e}")
        keys = ring.get("keys", {})
        expect(hex64.fullmatch(ring.get("lookup", "")), f"{keyring}: no 64-hex lookup key")
        expect(hex64.fullmatch(keys.get(str(ring.get("writer")), "")),
               f"{keyring}: its writer {ring.get('writer')!r} is not a 64-hex key of [keys]")
    tracked = run(["git", "-C", ROOT, "ls-files", "config/examples"]).stdout.split()
    committed = [f for f in tracked if f.endswith((".key", ".password", ".pem"))]
    expect(not committed, f"git tracks key files of the examples: {committed}")


def expect_redis_acls(folder):
    """After `tools/cluster up`: each Redis password file `up` made is mode
    600, and each node's users.acl (mode 600) holds SHA-256 hashes of them,
    never a password in the clear, and no default user anyone can log in as."""
    import hashlib
    folder = Path(folder)
    passwords = {}
    for f in [*folder.glob("*.redis.password"), *folder.glob("*.redis.password.operator")]:
        mode = f.stat().st_mode & 0o777
        expect(mode == 0o600, f"{f} is mode {mode:o}, not 600")
        text = f.read_text()
        passwords[f] = text[:-1] if text.endswith("\n") else text
    expect(passwords, f"`tools/cluster up` made no Redis password file in {folder}")
    acls = sorted(folder.glob("data/**/redis/users.acl"))
    expect(acls, f"`tools/cluster up` wrote no users.acl under {folder}/data")
    for acl in acls:
        mode = acl.stat().st_mode & 0o777
        expect(mode == 0o600, f"{acl} is mode {mode:o}, not 600")
        text = acl.read_text()
        expect(text.startswith("user default off "), f"{acl}: the default user is not off")
        expect(" -@dangerous " in text, f"{acl}: carrierd's user may run dangerous commands")
        hashes = 0
        for f, password in passwords.items():
            expect(password not in text, f"{acl} holds the password of {f.name} in the clear")
            hashes += ("#" + hashlib.sha256(password.encode()).hexdigest()) in text
        expect(hashes == 2, f"{acl}: expected the hashes of two passwords, found {hashes}")


def show_carrierd_logs(folder, pattern="data/**/carrierd.log", lines=15, file=sys.stderr):
    """The last lines of each carrierd's log under folder: what a failed test
    shows besides its own message."""
    for log in sorted(Path(folder).glob(pattern)):
        print(f"--- {log.relative_to(folder)} (last lines)", file=file)
        print("\n".join(log.read_text(errors="replace").splitlines()[-lines:]), file=file)


class Failure(Exception):
    """What a test reports as its failure."""


def expect(condition, message):
    if not condition:
        raise Failure(message)


def run(argv, timeout=60, check=True, **kw):
    """Runs a command with a timeout; its output is captured. A timeout, or a
    non-zero exit when `check`, is a Failure that shows the output."""
    try:
        r = subprocess.run([str(a) for a in argv], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=timeout, **kw)
    except subprocess.TimeoutExpired:
        raise Failure(f"`{' '.join(map(str, argv))}` did not finish in {timeout:.0f} s")
    if check and r.returncode != 0:
        raise Failure(f"`{' '.join(map(str, argv))}` exited {r.returncode}:\n"
                      f"{r.stdout}{r.stderr}")
    return r


def wait(what, condition, seconds=30):
    """Polls condition until it holds; a Failure naming `what` after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        expect(time.monotonic() < deadline, f"{what} did not happen in {seconds} s")
        time.sleep(0.3)


def resident_id():
    """A random PRC resident ID number with a valid check character."""
    body = (f"110105{random.randint(1970, 2000)}{random.randint(1, 12):02}"
            f"{random.randint(1, 28):02}{random.randint(0, 999):03}")
    weights = [7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2]
    return body + "10X98765432"[sum(int(d) * w for d, w in zip(body, weights)) % 11]


def add_subscriber(folder, carrier, msisdn, iccid, name, id_number, cluster_args=(),
                   timeout=30):
    """`tools/cluster subscriber`: the carrier's record of a SIM, as its operator
    adds it (cluster_args: e.g. the --netns options of the deployment)."""
    run([sys.executable, CLUSTER, *cluster_args, "--configs", folder, "subscriber",
         "--carrier", carrier, "--msisdn", msisdn, "--iccid", iccid, "--name", name,
         "--id-number", id_number], timeout=timeout)


def last_code(folder, msisdn, cluster_args=(), timeout=30):
    """`tools/cluster sms MSISDN`: the last code texted to msisdn."""
    code = run([sys.executable, CLUSTER, *cluster_args, "--configs", folder, "sms", msisdn],
               timeout=timeout).stdout.strip()
    expect(re.fullmatch(r"\d{6}", code), f"tools/cluster sms {msisdn} printed {code!r}")
    return code


class Unavailable(Failure):
    """A 503: the gateway shed the request; a phone retries after Retry-After."""

    def __init__(self, message, retry_after_s):
        super().__init__(message)
        self.retry_after_s = retry_after_s


def http(method, url, body=None, token=None, content_type="application/json", timeout=20):
    """One request: (status, body text, headers). body: text, bytes, or a
    dict or list sent as JSON; token: the bearer token."""
    if isinstance(body, (dict, list)):
        body = json.dumps(body)
    data = body.encode() if isinstance(body, str) else body
    request = urllib.request.Request(url, data=data, method=method)
    if data is not None:
        request.add_header("Content-Type", content_type)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as r:
            return r.status, r.read().decode(), r.headers
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode(errors="replace"), e.headers


def ok_json(method, url, body=None, token=None, content_type="application/json"):
    """The JSON answer of a request that must succeed: a 503 is Unavailable,
    any other status but 2xx a Failure."""
    status, text, headers = http(method, url, body, token, content_type)
    if status == 503:
        raise Unavailable(f"{method} {url}: 503 {text}",
                          float(headers.get("Retry-After", "1")))
    expect(200 <= status < 300, f"{method} {url}: {status} {text}")
    return json.loads(text or "{}")


def register(folder, carrier, gateway, msisdn, name, id_number, cluster_args=()):
    """The operator adds the SIM; the phone asks for a code and sends it back.
    Returns the verification's answer (the line's token and idcode)."""
    iccid = "8986" + "".join(random.choice("0123456789") for _ in range(16))
    add_subscriber(folder, carrier, msisdn, iccid, name, id_number, cluster_args)
    sent = ok_json("POST", f"{gateway}/v1/register", {"msisdn": msisdn, "iccid": iccid})
    expect(sent.get("status") == "code-sent", f"register {msisdn} at {carrier}: {sent}")
    return ok_json("POST", f"{gateway}/v1/register/verify",
                   {"msisdn": msisdn, "code": last_code(folder, msisdn, cluster_args)})
