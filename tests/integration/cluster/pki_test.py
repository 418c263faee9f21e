#!/usr/bin/env python3
"""ctest cluster_pki: tools/pki on a temporary folder, checked with the
openssl command the way carrierd's TLS sees the files:

  - init for carrier-a (a1, a2), carrier-b (b1), carrier-c (c1) makes every
    file the contract names; private keys and .pem files are mode 0600;
  - each leaf .pem is the certificate, then its PKCS#8 key, the key matches,
    EC P-256, 397 days, CA:FALSE, digitalSignature, serverAuth+clientAuth; it
    verifies against its own CA for TLS server and client; CAs are CA:TRUE
    (critical), keyCertSign+cRLSign, 10 years; signing keys are Ed25519;
  - a carrier's cluster certificate does not verify against another
    carrier's cluster CA, nor against the federation CA, and a federation
    certificate not against a cluster CA;
  - init again changes no file; a missing file is made again, alone; a
    leaf that does not verify is an error that leaves it as it is;
  - rotate gives carrier-a new keys and certificates that verify, by rename
    (a reader holding the old file still reads all of it), leaves its signing
    key and the other carriers alone and no temporary file behind;
  - --version, --help and usage errors.

Needs only the openssl command; no build. Exits 77 (ctest SKIP) without it."""

import re
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path

from example_deployment import ROOT, Failure, expect, run

PKI = ROOT / "tools" / "pki"
SKIP = 77
CARRIERS = {"carrier-a": ["a1", "a2"], "carrier-b": ["b1"], "carrier-c": ["c1"]}
SPECS = [f"{c}:{','.join(nodes)}" for c, nodes in CARRIERS.items()]


def pki(*args, check=True):
    return run([PKI, *args], timeout=60, check=check)


def openssl(*args, check=True):
    return run(["openssl", *args], timeout=30, check=check)


def verifies(cert, ca, purpose="sslserver"):
    return openssl("verify", "-x509_strict", "-purpose", purpose, "-CAfile", ca, cert,
                   check=False).returncode == 0


def expected_files(folder):
    files = [folder / "federation-ca.key", folder / "federation-ca.crt"]
    for carrier, nodes in CARRIERS.items():
        c = folder / carrier
        files += [c / "federation.pem", c / "signing.key", c / "signing.pub",
                  c / "cluster-ca.key", c / "cluster-ca.crt"]
        files += [c / f"{n}.cluster.pem" for n in nodes]
    return files


def snapshot(folder):
    """Each file's bytes and inode: what "unchanged" means."""
    return {p: (p.read_bytes(), p.stat().st_ino) for p in folder.rglob("*") if p.is_file()}


def not_after_minus_before(cert):
    out = openssl("x509", "-in", cert, "-noout", "-startdate", "-enddate").stdout
    dates = dict(line.split("=", 1) for line in out.splitlines())
    parse = lambda s: datetime.strptime(s.replace("  ", " "), "%b %d %H:%M:%S %Y %Z")
    return (parse(dates["notAfter"]) - parse(dates["notBefore"])).days


def check_ca(crt):
    text = openssl("x509", "-in", crt, "-noout", "-text").stdout
    expect(re.search(r"Basic Constraints: critical\s+CA:TRUE", text), f"{crt}: not CA:TRUE critical")
    expect(re.search(r"Key Usage: critical\s+Certificate Sign, CRL Sign", text),
           f"{crt}: keyUsage is not critical keyCertSign, cRLSign")
    expect("prime256v1" in text or "P-256" in text, f"{crt}: not EC P-256")
    days = not_after_minus_before(crt)
    expect(3650 <= days <= 3653, f"{crt}: valid {days} days, not 10 years")


def check_leaf(pem, ca, cn):
    lines = pem.read_text().splitlines()
    blocks = [line for line in lines if line.startswith("-----BEGIN")]
    expect(blocks == ["-----BEGIN CERTIFICATE-----", "-----BEGIN PRIVATE KEY-----"],
           f"{pem} holds {blocks}, not the certificate then its PKCS#8 key")
    text = openssl("x509", "-in", pem, "-noout", "-text").stdout
    subject = openssl("x509", "-in", pem, "-noout", "-subject", "-nameopt", "RFC2253").stdout
    expect(subject.strip() == f"subject=CN={cn}", f"{pem}: {subject.strip()}, not CN={cn}")
    expect(re.search(r"Basic Constraints:\s+CA:FALSE", text), f"{pem}: not CA:FALSE")
    expect(re.search(r"Key Usage: critical\s+Digital Signature\n", text),
           f"{pem}: keyUsage is not critical digitalSignature")
    expect(re.search(r"Extended Key Usage:\s+TLS Web Server Authentication, "
                     r"TLS Web Client Authentication", text),
           f"{pem}: extendedKeyUsage is not serverAuth, clientAuth")
    expect("prime256v1" in text or "P-256" in text, f"{pem}: not EC P-256")
    days = not_after_minus_before(pem)
    expect(days == 397, f"{pem}: valid {days} days, not 397")
    cert_key = openssl("x509", "-in", pem, "-noout", "-pubkey").stdout
    key = openssl("pkey", "-in", pem, "-pubout").stdout
    expect(cert_key == key, f"{pem}: its key does not match its certificate")
    for purpose in ("sslserver", "sslclient"):
        expect(verifies(pem, ca, purpose), f"{pem} does not verify against {ca} ({purpose})")


def check_modes(folder):
    for p in folder.rglob("*"):
        if p.is_file() and p.suffix in (".key", ".pem"):
            mode = p.stat().st_mode & 0o777
            expect(mode == 0o600, f"{p} is mode {mode:o}, not 600")


def test(folder):
    started = time.monotonic()
    out = pki("init", folder, *SPECS).stdout
    took = time.monotonic() - started
    missing = [str(p) for p in expected_files(folder) if not p.is_file()]
    expect(not missing, f"init did not make {missing}:\n{out}")
    check_modes(folder)
    print(f"pki: init of 3 carriers, 4 nodes made {len(expected_files(folder))} files "
          f"in {took:.1f} s")

    fca = folder / "federation-ca.crt"
    check_ca(fca)
    for carrier, nodes in CARRIERS.items():
        c = folder / carrier
        check_leaf(c / "federation.pem", fca, carrier)
        check_ca(c / "cluster-ca.crt")
        for n in nodes:
            check_leaf(c / f"{n}.cluster.pem", c / "cluster-ca.crt", f"{carrier}/{n}")
        key = openssl("pkey", "-in", c / "signing.key", "-noout", "-text").stdout
        expect(key.startswith("ED25519 Private-Key"), f"{c}/signing.key is not Ed25519")
        expect(openssl("pkey", "-in", c / "signing.key", "-pubout").stdout ==
               (c / "signing.pub").read_text(), f"{c}/signing.pub is not its key's")
    print("pki: chains, extensions, lifetimes, key types and key pairs as the contract says")

    a, b = folder / "carrier-a", folder / "carrier-b"
    for cert, ca in ((a / "a1.cluster.pem", b / "cluster-ca.crt"),
                     (b / "b1.cluster.pem", a / "cluster-ca.crt"),
                     (a / "a1.cluster.pem", fca),
                     (a / "federation.pem", a / "cluster-ca.crt")):
        for purpose in ("sslserver", "sslclient"):
            expect(not verifies(cert, ca, purpose),
                   f"{cert.relative_to(folder)} verifies against {ca.relative_to(folder)}")
    print("pki: a cluster certificate verifies only against its own carrier's cluster CA")

    before = snapshot(folder)
    out = pki("init", folder, *SPECS).stdout
    expect(snapshot(folder) == before, "init again changed files")
    expect("nothing made" in out, f"init again says:\n{out}")
    (b / "b1.cluster.pem").unlink()
    pki("init", folder, *SPECS)
    after = snapshot(folder)
    changed = sorted(str(p.relative_to(folder)) for p in after if after[p] != before.get(p))
    expect(changed == ["carrier-b/b1.cluster.pem"], f"making b1's certificate again changed "
                                                    f"{changed}")
    check_leaf(b / "b1.cluster.pem", b / "cluster-ca.crt", "carrier-b/b1")
    print("pki: init again changes nothing; a missing file is made again, alone")

    stray = a / "a1.cluster.pem"
    good = stray.read_bytes()
    stray.write_bytes((b / "b1.cluster.pem").read_bytes())
    r = pki("init", folder, *SPECS, check=False)
    expect(r.returncode == 1 and "a1.cluster.pem" in r.stderr and "rotate" in r.stderr,
           f"init over a certificate of another carrier: exit {r.returncode}\n{r.stderr}")
    expect(stray.read_bytes() == (b / "b1.cluster.pem").read_bytes(),
           "init changed a file that does not verify")
    stray.write_bytes(good)
    print("pki: a certificate that does not verify stops init and stays as it is")

    before = snapshot(folder)
    rotated = [a / "federation.pem", a / "a1.cluster.pem", a / "a2.cluster.pem"]
    held = open(a / "federation.pem", "rb")  # a reader in the middle of the old file
    try:
        head = held.read(100)
        out = pki("rotate", folder, "carrier-a").stdout
        rest = held.read()
    finally:
        held.close()
    expect(head + rest == before[a / "federation.pem"][0],
           "a reader of the old federation.pem saw it change: not replaced by rename")
    after = snapshot(folder)
    changed = sorted(p for p in after if after[p] != before.get(p))
    expect(changed == sorted(rotated), f"rotate changed {changed}, not {rotated}")
    for p in rotated:
        expect(after[p][1] != before[p][1], f"{p} was rewritten in place, not renamed over")
        expect(p.name in out and "expires" in out, f"rotate does not report {p.name}:\n{out}")
    check_leaf(a / "federation.pem", fca, "carrier-a")
    for n in ("a1", "a2"):
        check_leaf(a / f"{n}.cluster.pem", a / "cluster-ca.crt", f"carrier-a/{n}")
    for p in rotated:
        old = subprocess.run(["openssl", "pkey", "-pubout"], input=before[p][0],
                             capture_output=True).stdout
        new = openssl("pkey", "-in", p, "-pubout").stdout.encode()
        expect(old != new, f"rotate kept the key of {p}")
    leftovers = [str(p) for p in folder.rglob(".*")]
    expect(not leftovers, f"rotate left temporary files: {leftovers}")
    check_modes(folder)
    check = pki("check", folder).stdout
    expect("every certificate verifies" in check, f"check after rotate:\n{check}")
    print("pki: rotate replaced carrier-a's three certificates and keys by rename; they verify")

    version = pki("--version").stdout.strip()
    project = (ROOT / "VERSION").read_text().strip()
    expect(version == f"pki (simsync) {project}", f"--version: {version}")
    expect("rotate DIR CARRIER" in pki("--help").stdout, "--help lacks rotate")
    for argv in ([], ["init", folder], ["init", folder, "carrier-a"], ["frob"],
                 ["init", folder, "carrier a:a1"], ["rotate", folder]):
        r = pki(*argv, check=False)
        expect(r.returncode == 2 and "Usage" in r.stderr, f"tools/pki {argv}: exit "
                                                          f"{r.returncode}\n{r.stderr}")
    r = pki("rotate", folder, "carrier-z", check=False)
    expect(r.returncode == 1 and "carrier-z" in r.stderr, f"rotate of no carrier: {r.stderr}")
    print(f"pki: {version}; usage errors exit 2")


def main():
    if shutil.which("openssl") is None:
        print("SKIP: the openssl command is not installed (tools/setup installs it)")
        return SKIP
    folder = Path(tempfile.mkdtemp(prefix="simsync-pki-test-"))
    try:
        test(folder / "pki")
    except Failure as e:
        print(f"cluster_pki: FAILED: {e}", file=sys.stderr)
        return 1
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    print("cluster_pki: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
