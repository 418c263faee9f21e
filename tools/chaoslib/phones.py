"""The phones tools/chaos drives, and what each one knows it was told.

Each person has lines at two or three carriers (some a second line at one of
them), all subscribers of their carriers. A line edits only contacts of its
own (uids it made), so the rightful value of every contact is decided by
one line's requests in the order it sent them; what other lines hold of it
is decided by their pulls. For each contact the model keeps every attempt
with whether the server acknowledged it: the store may end with the last
acknowledged value or with one sent after it whose answer was lost, and
with nothing else.

Lines are of two kinds: appliers apply every pull and also send snapshots;
keepers discard some pulls ("keep mine") and send only deltas, so their
discarded versions are never re-asserted by a snapshot (the store would then
rightly put the older version back, which this model does not predict)."""

import random
import re
import threading
import time
import zlib

from . import http
from .deployment import HarnessError

SHARED, PRIVATE = "shared", "private"
OWN_CONTACTS = 6  # contacts each line edits, created on first use


def card(uid, value):
    tel = zlib.crc32(uid.encode()) % 10**8
    return (f"BEGIN:VCARD\r\nVERSION:3.0\r\nUID:{uid}\r\nFN:{value}\r\n"
            f"TEL;TYPE=CELL:+1555{tel:08}\r\nEND:VCARD\r\n")


CARD = re.compile(r"BEGIN:VCARD(.*?)END:VCARD", re.S)


def read_cards(text):
    """[(uid, value)] of a vCard body this harness wrote (the value is FN)."""
    out = []
    for body in CARD.findall(text or ""):
        fields = dict(re.findall(r"^(UID|FN)[^:]*:(.*?)\r?$", body, re.M))
        out.append((fields.get("UID"), fields.get("FN")))
    return out


class Attempts:
    """The values one contact (or one private book) was sent with, in order,
    and whether each was acknowledged. None is a removal."""

    def __init__(self):
        self.sent = []

    def add(self, value, acked):
        self.sent.append((value, acked))

    def acknowledged(self):
        return any(acked for _, acked in self.sent)

    def allowed(self):
        """What the store may hold: the last acknowledged value and any sent
        after it (their answers were lost); before any acknowledgement also
        nothing at all."""
        last = max((i for i, (_, acked) in enumerate(self.sent) if acked), default=None)
        if last is None:
            return {None} | {v for v, _ in self.sent}
        return {v for v, _ in self.sent[last:]}


class Line:
    def __init__(self, person, carrier, msisdn, iccid, keeper, late):
        self.person, self.carrier, self.msisdn, self.iccid = person, carrier, msisdn, iccid
        self.keeper, self.late = keeper, late
        self.token = None
        self.local = {}        # uid -> value: the phone's own book (shared scope)
        self.own = {}          # own uid -> Attempts
        self.private = Attempts()  # values: frozensets of (uid, value)
        self.discarded = {}    # uid -> {values this line discarded}
        self.unsure = None     # why the model no longer knows this line's state
        self.lock = threading.Lock()

    @property
    def name(self):
        return f"{self.msisdn}@{self.carrier}"

    def path(self, rest, scope=None):
        return f"/v1/lines/{self.msisdn}{rest}" + (f"?scope={scope}" if scope else "")


class Person:
    def __init__(self, name, id_number):
        self.name, self.id_number = name, id_number
        self.lines = []


class Workload:
    """The operations, each one request (or one pull) of one line, counted by
    kind and outcome."""

    # How often a registered line does each; a line without a token registers.
    WEIGHTS = {"delta": 30, "snapshot": 10, "delete": 8, "private": 8, "pull": 34}

    def __init__(self, deployment, persons):
        self.deployment = deployment
        self.persons = persons
        self.lines = [line for p in persons for line in p.lines]
        self.gateways = {c: [n.gateway for n in ns] for c, ns in deployment.carriers().items()}
        self.counter_lock = threading.Lock()
        self.next_value = 0
        self.ops = {}
        self.statuses = {}  # phase (a fault's kind, or "calm") -> answer -> count
        self.phase = "calm"
        self.anomalies = []  # (kind, text): what an answer showed that is never right

    # -- bookkeeping ----------------------------------------------------------

    def value(self, uid):
        with self.counter_lock:
            self.next_value += 1
            return f"chaos {uid} r{self.next_value}"

    def count(self, op, acked, status):
        with self.counter_lock:
            o = self.ops.setdefault(op, {"acknowledged": 0, "failed": 0})
            o["acknowledged" if acked else "failed"] += 1
            key = str(status) if status is not None else "no answer"
            during = self.statuses.setdefault(self.phase, {})
            during[key] = during.get(key, 0) + 1

    def anomaly(self, kind, text):
        """What an answer showed that can never be right, as a finding of
        verify's kinds."""
        with self.counter_lock:
            self.anomalies.append((kind, text))

    def acknowledged(self):
        return sum(o["acknowledged"] for o in self.ops.values())

    def send(self, line, method, path, body=None, content_type="text/vcard", timeout=5.0,
             rng=random):
        address = rng.choice(self.gateways[line.carrier])
        r = http.request(self.deployment, address, method, path, body, line.token,
                         content_type, timeout)
        if r.status is not None and r.status >= 400 and not r.is_problem():
            self.anomaly("unclear", f"{line.name}: {method} {path.split('?')[0]} answered "
                                    f"{r.status} without a problem body "
                                    f"({r.content_type!r}: {r.body[:100]!r})")
        return r

    # -- setup ------------------------------------------------------------------

    def add_subscribers(self):
        for line in self.lines:
            status, answer = self.deployment.admin(
                line.carrier, "PUT", f"/admin/subscribers/{line.msisdn}",
                {"iccid": line.iccid, "name": line.person.name,
                 "id_number": line.person.id_number, "active": True})
            if status not in (200, 201):
                raise HarnessError(f"{line.carrier}: subscriber {line.msisdn} refused "
                                   f"(status {status}: {answer})")

    # -- operations -------------------------------------------------------------

    def register(self, line, rng):
        sent = self.deployment.sms_count(line.msisdn)
        r = self.send(line, "POST", "/v1/register", {"msisdn": line.msisdn, "iccid": line.iccid},
                      "application/json", rng=rng)
        if r.status != 202:
            return self.count("register", False, r.status)
        deadline, code = time.monotonic() + 10, None
        while code is None and time.monotonic() < deadline:
            code = self.deployment.sms_code(line.msisdn, sent)
            time.sleep(0.05)
        if code is None:
            return self.count("register", False, "no SMS")
        r = self.send(line, "POST", "/v1/register/verify", {"msisdn": line.msisdn, "code": code},
                      "application/json", rng=rng)
        # 201: its account or line was made now; 200: it was registered before
        # (a verify whose answer was lost), and this new token revokes that one.
        token = (r.json() or {}).get("token") if r.status in (200, 201) else None
        if token:
            line.token = token
        self.count("register", bool(token), r.status)

    def upload(self, line, op, method, scope, cards, rng):
        """Sends a book (PUT: the whole book, POST: a delta); True when the
        server acknowledged storing every card of it."""
        body = "".join(card(uid, value) for uid, value in cards)
        r = self.send(line, method, line.path("/contacts", scope), body, rng=rng)
        answer = r.json() if r.status == 200 else None
        acked = isinstance(answer, dict) and not answer.get("rejected")
        if r.status == 200 and not acked:
            self.anomaly("diverged", f"{line.name}: {op} answered 200 with cards refused: "
                                     f"{r.body[:200]}")
        self.count(op, acked, r.status)
        return acked

    def sent_own(self, line, uid, value, acked):
        line.own.setdefault(uid, Attempts()).add(value, acked)

    def delta(self, line, rng):
        uid = f"{line.msisdn[1:]}-{rng.randrange(OWN_CONTACTS)}"
        value = self.value(uid)
        line.local[uid] = value
        acked = self.upload(line, "delta", "POST", SHARED, [(uid, value)], rng)
        self.sent_own(line, uid, value, acked)

    def snapshot(self, line, rng):
        """The whole book, one own contact edited: it asserts every own
        contact's value, a removed one's absence included."""
        uid = f"{line.msisdn[1:]}-{rng.randrange(OWN_CONTACTS)}"
        line.local[uid] = self.value(uid)
        acked = self.upload(line, "snapshot", "PUT", SHARED, sorted(line.local.items()), rng)
        for u in sorted(set(line.own) | {uid}):
            self.sent_own(line, u, line.local.get(u), acked)

    def delete(self, line, rng):
        mine = sorted(u for u in line.local if u in line.own)
        if not mine:
            return self.delta(line, rng)
        uid = rng.choice(mine)
        del line.local[uid]
        r = self.send(line, "DELETE", line.path(f"/contacts/{uid}", SHARED), rng=rng)
        self.sent_own(line, uid, None, r.status == 200)
        self.count("delete", r.status == 200, r.status)

    def private_upload(self, line, rng):
        uids = [f"p{line.msisdn[1:]}-{i}" for i in range(rng.randint(1, 4))]
        book = [(uid, self.value(uid)) for uid in uids]
        acked = self.upload(line, "private", "PUT", PRIVATE, book, rng)
        line.private.add(frozenset(book), acked)

    def fetch(self, line, rng=random):
        """The line's whole pending mailbox (every page): (cursor, cards,
        removed uids), or None when it cannot be read now."""
        r = self.send(line, "POST", line.path("/update"), rng=rng)
        if r.status != 200:
            return r.status, None
        cursor, cards, removed, query = None, [], [], "?limit=10000"
        while True:
            r = self.send(line, "GET", line.path("/pending") + query, rng=rng)
            answer = r.json() if r.status == 200 else None
            if not isinstance(answer, dict):
                return r.status, None
            cursor = cursor or answer.get("cursor")
            cards += read_cards(answer.get("cards", ""))
            removed += answer.get("removed_uids", [])
            if not answer.get("next"):
                return 200, (cursor, cards, removed)
            query = f"?limit=10000&next={answer['next']}"

    def pull(self, line, rng):
        status, fetched = self.fetch(line, rng)
        if fetched is None:
            return self.count("pull", False, status)
        cursor, cards, removed = fetched
        if not cursor or not (cards or removed):
            return self.count("pull", True, status)
        for uid, _ in cards:
            if uid in line.own:
                self.anomaly("duplicated", f"{line.name}: its own contact {uid} came back as "
                                           "pending")
        decision = "discard" if line.keeper and rng.random() < 0.5 else "apply"
        landed, status = self.ack(line, cursor, decision, rng)
        if landed is None:
            line.unsure = f"its pending ack ({decision}) was never answered"
        elif landed:
            if decision == "apply":
                for uid, value in cards:
                    line.local[uid] = value
                for uid in removed:
                    line.local.pop(uid, None)
            else:
                for uid, value in cards:
                    line.discarded.setdefault(uid, set()).add(value)
                for uid in removed:
                    line.discarded.setdefault(uid, set()).add(None)
        self.count("pull", bool(landed), status)

    def ack(self, line, cursor, decision, rng):
        """Acknowledges a fetch until the server says whether it took it:
        (True/False/None if never answered, last status). An ack whose answer
        was lost and that a retry finds stale was taken the first time: only
        this harness fetches this line's mailbox."""
        deadline = time.monotonic() + 30
        tries, status = 0, None
        while time.monotonic() < deadline:
            r = self.send(line, "POST", line.path("/pending/ack"),
                          {"cursor": cursor, "decision": decision}, "application/json", rng=rng)
            status = r.status
            if r.status == 200:
                return True, status
            if r.status == 409:
                return tries > 0, status
            if r.status is not None and r.status < 500:
                self.anomaly("diverged", f"{line.name}: ack refused with {r.status}: "
                                         f"{r.body[:200]}")
                return False, status
            tries += 1
            time.sleep(0.5)
        return None, status

    def one(self, line, rng):
        if line.token is None:
            return self.register(line, rng)
        kinds = [k for k in self.WEIGHTS if not (k == "snapshot" and line.keeper)]
        op = rng.choices(kinds, [self.WEIGHTS[k] for k in kinds])[0]
        {"delta": self.delta, "snapshot": self.snapshot, "delete": self.delete,
         "private": self.private_upload, "pull": self.pull}[op](line, rng)

    def worker(self, seed, stop):
        rng = random.Random(seed)
        while not stop.is_set():
            line = rng.choice(self.lines)
            if line.unsure or not line.lock.acquire(blocking=False):
                time.sleep(0.001)
                continue
            try:
                self.one(line, rng)
            finally:
                line.lock.release()


def make_people(rng, carriers, count, resident_id):
    """`count` persons, each with lines at two or three of the carriers and
    one in four with a second line at one of them; a quarter of the lines
    (never a person's first) register only during the faults."""
    persons = []
    for i in range(count):
        p = Person(f"Chaos Person {i}", resident_id())
        chosen = rng.sample(carriers, rng.choice([2, 3]))
        if rng.random() < 0.25:
            chosen.append(chosen[0])
        for j, carrier in enumerate(chosen):
            msisdn = f"+86139{rng.randrange(10**8):08}"
            iccid = f"898600{rng.randrange(10**14):014}"
            p.lines.append(Line(p, carrier, msisdn, iccid, keeper=rng.random() < 0.3,
                                late=j > 0 and rng.random() < 0.25))
        persons.append(p)
    return persons
