#!/usr/bin/env bash
# tests/package/package_test.sh BUILD_DIR SOURCE_DIR [CPACK]
#
# Builds the Debian package from a built tree (cpack -G DEB, into a
# temporary folder: nothing is installed on this machine) and checks it:
# the control fields and maintainer scripts, every program (it runs, answers
# --version with the version in SOURCE_DIR/VERSION, and -h), the man pages,
# the example configs (carrierd's parser reads the example as it is, with
# stand-in secrets), and the carrierd@.service template: systemd-analyze
# verify, against the package's files and this machine's units (the
# redis-server@.service it requires), and systemd-analyze security; and
# simsync-cluster, which starts the example deployment it installs with the
# package's programs (ports moved by an offset), then stops it. Each
# check prints what it checked; the first that fails stops the test with
# the reason (exit 1).
#
# Needs: cpack (CPACK, default: the one on PATH), dpkg-deb, dpkg-shlibdeps,
# systemd-analyze, python3 >= 3.11, and man pages in the build (help2man
# installed when cmake configured; tools/setup installs it).
set -euo pipefail

if (($# < 2)); then
  echo "usage: $0 BUILD_DIR SOURCE_DIR [CPACK]" >&2
  exit 2
fi
build=$(cd "$1" && pwd)
source=$(cd "$2" && pwd)
cpack=${3:-cpack}

ok() { printf 'ok: %s\n' "$*"; }
fail() {
  printf 'FAIL: %s\n' "$*" >&2
  exit 1
}

work=$(mktemp -d "${TMPDIR:-/tmp}/simsync-package-test.XXXXXX")
trap 'rm -rf -- "$work"' EXIT

for tool in "$cpack" dpkg-deb dpkg systemd-analyze python3 zcat; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (tools/setup installs it)"
done
[[ -f $build/CPackConfig.cmake ]] ||
  fail "$build/CPackConfig.cmake is missing: is $build a configured build folder?"

version=$(head -n 1 "$source/VERSION")
[[ -n $version ]] || fail "$source/VERSION is empty"
arch=$(dpkg --print-architecture)
deb_name="simsync_${version}_${arch}.deb"

# -- build the package -----------------------------------------------------------

printf 'cpack -G DEB in %s (version %s)...\n' "$build" "$version"
if ! (cd "$build" && "$cpack" -G DEB --config "$build/CPackConfig.cmake" -B "$work/out") \
  >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log" >&2
  fail "cpack -G DEB failed (its output is above)"
fi
deb=$work/out/$deb_name
if [[ ! -f $deb ]]; then
  cat "$work/cpack.log" >&2
  fail "cpack made no $deb_name; it made: $(cd "$work/out" && ls -- *.deb 2>/dev/null | tr '\n' ' ')"
fi
ok "cpack made $deb_name ($(du -h "$deb" | cut -f1))"

# -- control fields and maintainer scripts --------------------------------------

field() { dpkg-deb -f "$deb" "$1"; }
expect_field() {
  local name=$1 want=$2 got
  got=$(field "$name")
  [[ $got == "$want" ]] || fail "control field $name is '$got', expected '$want'"
  ok "control field $name: $got"
}
expect_field Package simsync
expect_field Version "$version"
expect_field Architecture "$arch"
depends=$(field Depends)
# redis-server: named by packaging.cmake; libc6: found by dpkg-shlibdeps in
# the programs' libraries.
for want in redis-server adduser openssl python3 libc6 libstdc++6; do
  [[ ", $depends," =~ [,\ ]"$want"[\ ,] ]] || fail "Depends does not name $want: $depends"
done
ok "Depends names redis-server, adduser, openssl, python3 and the libraries' packages: $depends"
[[ -n $(field Maintainer) ]] || fail "no Maintainer field"
[[ -n $(field Description) ]] || fail "no Description field"
ok "Maintainer: $(field Maintainer); Section: $(field Section)"

dpkg-deb -e "$deb" "$work/control"
for script in postinst prerm postrm; do
  f=$work/control/$script
  [[ -f $f ]] || fail "the package has no $script"
  [[ -x $f ]] || fail "$script is not executable (mode $(stat -c %a "$f"))"
  sh -n "$f" || fail "$script is not valid sh"
done
grep -q 'adduser --system --group --home /var/lib/simsync' "$work/control/postinst" ||
  fail "postinst does not make the system user simsync"
grep -q 'daemon-reload' "$work/control/postinst" || fail "postinst does not reload systemd"
ok "postinst, prerm, postrm: executable, valid sh; postinst makes the user simsync"

# -- contents ------------------------------------------------------------------------

dpkg-deb -c "$deb" >"$work/contents"
# Every file belongs to root.
if awk '$2 != "root/root" { found = 1; print } END { exit !found }' "$work/contents" >&2; then
  fail "files not owned by root/root in the package (above)"
fi
# No secret: no private key, password, token or keyring file.
if grep -E '\.(key|pem|password|token)$|/pki/|federation\.key' "$work/contents" >&2; then
  fail "the package holds what looks like a secret (above)"
fi
ok "$(wc -l <"$work/contents") entries, all root/root, no key or password file"

dpkg-deb -x "$deb" "$work/root"
root=$work/root
# expect_file PATH MODE: a regular file of the package, with that mode in
# the package (-rwxr-xr-x or -rw-r--r--; extracting may apply a umask).
expect_file() {
  local mode
  [[ -f $root/$1 ]] || fail "the package has no /$1"
  mode=$(awk -v p="./$1" '$6 == p { print $1 }' "$work/contents")
  [[ $mode == "$2" ]] || fail "/$1 is ${mode:-not listed} in the package, expected $2"
}

# -- programs: --version and -h ------------------------------------------------------

for program in carrierd phone loadtest simsync-pki simsync-console simsync-cluster; do
  expect_file "usr/bin/$program" -rwxr-xr-x
  out=$("$root/usr/bin/$program" --version 2>&1) ||
    fail "$program --version exited with status $?: $out"
  [[ $out == *" (simsync) $version" ]] ||
    fail "$program --version says '$out', expected '... (simsync) $version'"
  "$root/usr/bin/$program" -h >"$work/help" 2>&1 ||
    fail "$program -h exited with status $?: $(head -n 3 "$work/help")"
  [[ -s $work/help ]] || fail "$program -h printed nothing"
  ok "/usr/bin/$program: --version '$out', -h ($(wc -l <"$work/help") lines)"
done
grep -q -- '--config FILE' <("$root/usr/bin/carrierd" --help) ||
  fail "carrierd --help does not list --config"

# -- man pages -------------------------------------------------------------------------

for page in carrierd phone loadtest simsync-pki; do
  f=usr/share/man/man1/$page.1.gz
  [[ -f $root/$f ]] || fail "no /$f (was help2man installed when cmake configured the" \
    "build? tools/setup installs it; then configure and build again)"
  expect_file "$f" -rw-r--r--
  gzip -t "$root/$f" || fail "/$f is not a valid gzip file"
  # help2man writes each '-' of an option as '\-'.
  text=$work/page.$page
  zcat "$root/$f" | sed 's/\\-/-/g' >"$text"
  title=${page^^}
  grep -q "^\.TH \"\?$title\"\? \"\?1\"\? .*simsync $version" "$text" ||
    fail "/$f: no '.TH $title 1 ... simsync $version' line: $(grep -m 1 '^\.TH' "$text")"
  grep -q "$page" <(sed -n '/^\.SH NAME/,/^\.SH/p' "$text") ||
    fail "/$f: its NAME section does not name $page"
  ok "/$f: $(grep -m 1 '^\.TH' "$text")"
done
grep -q -- '--config' "$work/page.carrierd" || fail "carrierd's man page does not mention --config"
ok "carrierd's man page documents --config"

# -- the systemd unit ---------------------------------------------------------------------

unit=usr/lib/systemd/system/carrierd@.service
expect_file "$unit" -rw-r--r--
grep -q '^ExecStart=/usr/bin/carrierd --config /etc/simsync/%i.toml$' "$root/$unit" ||
  fail "/$unit: ExecStart is not /usr/bin/carrierd --config /etc/simsync/%i.toml"
grep -q '^Requires=redis-server@%i.service$' "$root/$unit" ||
  fail "/$unit does not require redis-server@%i.service"
ok "/$unit: runs /usr/bin/carrierd --config /etc/simsync/%i.toml, requires redis-server@%i"

# A root for systemd-analyze: this machine's units (the standard targets,
# redis-server@.service), then the package's files over them, so that the
# unit is checked with the files it names (/usr/bin/carrierd, its man page).
sysroot=$work/sysroot
mkdir -p "$sysroot/usr/lib/systemd/system"
for dir in /usr/lib/systemd/system /lib/systemd/system; do
  if [[ -d $dir ]]; then cp -a "$dir/." "$sysroot/usr/lib/systemd/system/"; fi
done
if [[ ! -f $sysroot/usr/lib/systemd/system/redis-server@.service ]]; then
  # No redis-server package here: a stand-in with the same name and command.
  echo "note: no redis-server@.service on this machine; checking against a stand-in"
  cat >"$sysroot/usr/lib/systemd/system/redis-server@.service" <<'EOF'
[Unit]
Description=stand-in for the redis-server package's template (%i)
[Service]
Type=notify
ExecStart=/usr/bin/redis-server /etc/redis/redis-%i.conf --supervised systemd --daemonize no
EOF
  mkdir -p "$sysroot/usr/bin"
  printf '#!/bin/sh\n' >"$sysroot/usr/bin/redis-server"
  chmod 755 "$sysroot/usr/bin/redis-server"
fi
cp -a "$root/." "$sysroot/"

# verify_unit ROOT: systemd-analyze verify of carrierd@test.service there.
# systemd 252 only warns about an unknown directive or a value it cannot
# parse (the status stays 0), so any line about carrierd@ fails it too.
verify_unit() {
  local out status=0 man=(--man=yes)
  if ! command -v man >/dev/null; then man=(--man=no); fi
  out=$(MANPATH=$1/usr/share/man SYSTEMD_LOG_COLOR=0 \
    systemd-analyze verify --root="$1" "${man[@]}" carrierd@test.service 2>&1) || status=$?
  if ((status != 0)) || grep -q 'carrierd@' <<<"$out"; then
    printf '%s\n' "${out:-(no output)} (status $status)"
    return 1
  fi
  [[ -z $out ]] || printf 'note: systemd-analyze verify (about other units): %s\n' "$out"
}
if ! why=$(verify_unit "$sysroot"); then
  fail "systemd-analyze verify carrierd@test.service: $why"
fi
if ! command -v man >/dev/null; then
  echo "note: no man command here: the unit's Documentation=man:carrierd(1) was not checked"
fi
ok "systemd-analyze verify carrierd@test.service: no error, no warning (ExecStart, dependencies, man page)"

# The check itself catches a mistake: a misspelt directive, a bad value.
broken=$work/broken
cp -a "$sysroot" "$broken"
sed -i 's/^NoNewPrivileges=/NoNewPrivilege=/' "$broken/$unit"
verify_unit "$broken" >/dev/null && fail "verify passed a unit with a misspelt directive"
sed -i 's/^NoNewPrivilege=/NoNewPrivileges=/; s/^ProtectSystem=strict/ProtectSystem=strikt/' \
  "$broken/$unit"
verify_unit "$broken" >/dev/null && fail "verify passed a unit with a bad ProtectSystem value"
ok "the verify check fails a misspelt directive and a bad value"

# The hardening: systemd's exposure score (0 best, 10 worst) at most 2.0.
exposure=$(systemd-analyze security --offline=yes --root="$sysroot" carrierd@test.service 2>&1 |
  grep -m 1 'Overall exposure level' || true)
systemd-analyze security --offline=yes --root="$sysroot" --threshold=20 \
  carrierd@test.service >/dev/null 2>&1 ||
  fail "carrierd@.service is exposed more than 2.0: ${exposure:-see systemd-analyze security}"
ok "systemd-analyze security: ${exposure#→ }"

# -- example configs ---------------------------------------------------------------------------

examples=usr/share/doc/simsync/examples
for f in usr/share/doc/simsync/README.md $examples/carrierd-example.toml \
  $examples/redis-example.conf; do
  expect_file "$f" -rw-r--r--
done
# It carries every setting the store relies on (store/redis-settings.conf).
mapfile -t settings < <(grep -v -e '^#' -e '^$' "$source/store/redis-settings.conf")
[ "${#settings[@]}" -gt 0 ] || fail "store/redis-settings.conf holds no setting"
for setting in "${settings[@]}"; do
  grep -qxF "$setting" "$root/$examples/redis-example.conf" ||
    fail "redis-example.conf lacks the store's setting '$setting' (store/redis-settings.conf)"
done
ok "README.md, carrierd-example.toml and redis-example.conf (with the store's ${#settings[@]} Redis settings) in /usr/share/doc/simsync"

# carrierd reads the example as it is, its paths moved under a temporary
# folder that holds stand-ins for the secrets it names. The stand-in
# certificates are not PEM, so carrierd stops (status 2) at its TLS check,
# after the whole configuration was read and before it starts anything.
etc=$work/etc-simsync
# Its listen addresses move to loopback too.
sed "s#/etc/simsync/#$etc/#g; s#/var/lib/simsync/#$work/var/#g; s#\"0\.0\.0\.0:#\"127.0.0.1:#g" \
  "$root/$examples/carrierd-example.toml" >"$work/node.toml"
(
  umask 077
  cd "$work"
  python3 - "$work/node.toml" "$etc" <<'EOF'
# Makes a stand-in for each file the config names under the folder.
import os, secrets, subprocess, sys, tomllib
config, etc = sys.argv[1], sys.argv[2]
with open(config, "rb") as f:
    doc = tomllib.load(f)
paths = []
def walk(value):
    if isinstance(value, dict):
        for v in value.values(): walk(v)
    elif isinstance(value, list):
        for v in value: walk(v)
    elif isinstance(value, str) and value.startswith(etc + "/"):
        paths.append(value)
walk(doc)
for p in paths:
    os.makedirs(os.path.dirname(p), exist_ok=True)
    name = os.path.basename(p)
    if name.endswith("seal.key"):
        text = (f'writer = 1\nlookup = "{secrets.token_hex(32)}"\n\n'
                f'[keys]\n1 = "{secrets.token_hex(32)}"\n')
    elif name == "signing.key":
        text = subprocess.run(["openssl", "genpkey", "-algorithm", "ed25519"],
                              check=True, capture_output=True, text=True).stdout
    elif name.endswith((".crt", ".pem", ".pub")):
        text = "-----BEGIN CERTIFICATE-----\nnot a certificate\n-----END CERTIFICATE-----\n"
    else:  # federation key, passwords, tokens
        text = secrets.token_hex(32)
    with open(p, "w") as f:
        f.write(text)
    print(f"stand-in: {p}")
EOF
) >"$work/stand-ins" || fail "cannot make stand-ins for the example's files"
status=0
out=$(timeout 30 "$root/usr/bin/carrierd" --config "$work/node.toml" 2>&1) || status=$?
if [[ $out == *"config error"* ]] || ((status != 2)) || [[ $out != *TLS* ]]; then
  fail "carrierd does not read carrierd-example.toml (status $status): $out"
fi
ok "carrierd reads carrierd-example.toml (every key; stopped at the stand-in certificates)"
printf 'unknown_key = 1\n' | cat - "$work/node.toml" >"$work/bad.toml"
status=0
out=$(timeout 30 "$root/usr/bin/carrierd" --config "$work/bad.toml" 2>&1) || status=$?
[[ $out == *"config error: unknown_key"* && $status == 2 ]] ||
  fail "carrierd took a config with an unknown key (status $status): $out"
ok "and refuses it with an unknown key (the check above means something)"

# simsync-console reads node configs as an operator gives them (--configs
# /etc/simsync): one node, its admin port moved to one where nothing listens.
mkdir "$work/configs"
sed 's/^listen = "127.0.0.1:9090"/listen = "127.0.0.1:1"/' "$work/node.toml" \
  >"$work/configs/acme-n1.toml"
out=$("$root/usr/bin/simsync-console" --once --json --configs "$work/configs" \
  2>"$work/console.err") ||
  fail "simsync-console --once --json --configs failed: $(cat "$work/console.err")"
python3 -c '
import json, sys
nodes = json.loads(sys.argv[1])["nodes"]
assert [(n["carrier"], n["node"], n["up"]) for n in nodes] == [("acme", "n1", False)], nodes
' "$out" || fail "simsync-console --once --json did not show node acme/n1 down: $out"
ok "simsync-console --configs reads the example config (acme/n1, down)"

# -- simsync-cluster: a trial deployment from the package ---------------------------

# It runs the package's programs (not the build's) and the example deployment
# the package installs, copied at first use to the user's state folder (here
# $work/state: the package's folder is read-only), with every port moved by
# an offset so that a deployment running on this machine is left alone.
state=$work/state
cluster() { XDG_STATE_HOME=$state "$root/usr/bin/simsync-cluster" "$@" --port-offset 700; }
trap 'cluster down >/dev/null 2>&1 || true; rm -rf -- "$work"' EXIT
for f in three-carriers/carrier-a.toml two-node-carrier/carrier-a-a2.toml demo-registry.ndjson; do
  expect_file "usr/lib/simsync/config/examples/$f" -rw-r--r--
done
expect_file usr/lib/simsync/store/redis-settings.conf -rw-r--r--
cluster up >"$work/cluster.log" 2>&1 ||
  { cat "$work/cluster.log" >&2; fail "simsync-cluster up failed (its output is above)"; }
copy=$state/simsync/three-carriers
[[ -f $copy/carrier-a.toml ]] || fail "simsync-cluster up did not copy the example to $copy"
cluster status --json >"$work/status.json" || fail "simsync-cluster status --json failed"
# Every node up, and each carrierd running is the package's program.
python3 - "$work/status.json" "$root/usr/bin/carrierd" <<'EOF' ||
import json, os, sys
carriers = json.load(open(sys.argv[1]))["carriers"]
nodes = [n for c in carriers for n in c["nodes"]]
assert len(nodes) == 3 and all(n["up"] for n in nodes), nodes
for n in nodes:
    exe = os.readlink(f"/proc/{n['pid']}/exe")
    assert exe == sys.argv[2], f"node {n['id']} runs {exe}, not {sys.argv[2]}"
EOF
  fail "simsync-cluster status: $(cat "$work/status.json")"
cluster down >/dev/null || fail "simsync-cluster down failed"
ok "simsync-cluster up ran the installed example from $copy (3 nodes, the package's carrierd), then down"

echo "PASS: $deb_name"
