"""After the faults are healed: what every line, every account and every
pending mailbox must hold, read through the terminal API as phones read it.

  lost        an acknowledged change that a carrier's shared store, a
              sibling line (applied or pending) or a private backup does not
              hold
  duplicated  a change offered twice: twice in one mailbox, pending on a line
              that has already applied it, or a line's own change offered back
  diverged    a person's shared store that differs between carriers, or holds
              what no line sent
  stale       a pending change that is not what the store holds now
  unclear     a refusal (4xx, 5xx) without an RFC 9457 problem body saying why"""

from . import phones


class Findings:
    def __init__(self):
        self.lost = self.duplicated = self.diverged = self.stale = self.unreadable = 0
        self.unclear = 0
        self.details = []

    def add(self, kind, text):
        setattr(self, kind, getattr(self, kind) + 1)
        if len(self.details) < 50:
            self.details.append(f"{kind}: {text}")

    @property
    def clean(self):
        return not (self.lost or self.duplicated or self.diverged or self.stale or
                    self.unreadable or self.unclear)


def read_book(workload, line, scope, findings):
    r = workload.send(line, "GET", line.path("/contacts", scope))
    if r.status != 200:
        findings.add("unreadable", f"{line.name}: GET {scope} contacts answered {r.status}")
        return None
    book = {}
    for uid, value in phones.read_cards(r.body):
        if uid in book:
            findings.add("duplicated", f"{line.name}: {uid} twice in its {scope} store")
        book[uid] = value
    return book


def check(workload):
    """Every finding: the stores as they are now, and what the answers during
    the run showed."""
    findings = check_stores(workload)
    add_answers(workload, findings)
    return findings


def check_stores(workload):
    """What the stores, mailboxes and backups hold now (these settle as the
    carriers converge)."""
    findings = Findings()
    for person in workload.persons:
        check_person(workload, person, findings)
    return findings


def add_answers(workload, findings):
    """What an answer during the run showed that is never right (these stay,
    however long one waits)."""
    for kind, text in workload.anomalies:
        findings.add(kind, text)


def check_person(workload, person, findings):
    lines = [line for line in person.lines if line.token and not line.unsure]
    views = {}
    for line in lines:
        if line.carrier not in views:
            views[line.carrier] = read_book(workload, line, phones.SHARED, findings)
    if any(v is None for v in views.values()):
        return
    check_accounts(person, views, findings)
    for line in lines:
        check_line(workload, line, views[line.carrier], findings)
        check_private(workload, line, findings)


def check_accounts(person, views, findings):
    owners = {uid: attempts for line in person.lines for uid, attempts in line.own.items()}
    carriers = sorted(views)
    for a, b in zip(carriers, carriers[1:]):
        if views[a] != views[b]:
            differ = sorted(u for u in set(views[a]) | set(views[b])
                            if views[a].get(u) != views[b].get(u))
            findings.add("diverged", f"{person.name}: {a} and {b} differ on {differ[:5]}")
    for carrier, view in views.items():
        for uid in view:
            if uid not in owners:
                findings.add("diverged", f"{person.name}@{carrier}: {uid} that no line sent")
        for uid, attempts in owners.items():
            if view.get(uid) not in attempts.allowed():
                kind = "lost" if attempts.acknowledged() else "diverged"
                findings.add(kind, f"{person.name}@{carrier}: {uid} is {view.get(uid)!r}, "
                                   f"not one of {sorted(map(str, attempts.allowed()))}")


def check_line(workload, line, view, findings):
    status, fetched = workload.fetch(line)
    if fetched is None:
        findings.add("unreadable", f"{line.name}: pending answered {status}")
        return
    _, cards, removed = fetched
    pending = {}
    for uid, value in cards:
        pending.setdefault(uid, []).append(value)
    for uid in removed:
        pending.setdefault(uid, []).append(None)
    for uid in pending:
        if uid in line.own:
            findings.add("duplicated", f"{line.name}: its own {uid} is pending")
    for uid in (set(view) | set(line.local) | set(pending)) - set(line.own):
        want, have, offered = view.get(uid), line.local.get(uid), pending.get(uid, [])
        if len(offered) > 1:
            findings.add("duplicated", f"{line.name}: {uid} pending {len(offered)} times")
        elif have == want:
            if offered and offered[0] is not None:
                kind = "duplicated" if offered[0] == want else "stale"
                findings.add(kind, f"{line.name}: holds {uid} as {want!r}, yet {offered[0]!r} "
                                   "is pending")
        elif offered == [want]:
            continue
        elif offered:
            findings.add("stale", f"{line.name}: {uid} pending as {offered[0]!r}, the store "
                                  f"holds {want!r}")
        elif want not in line.discarded.get(uid, ()):
            findings.add("lost", f"{line.name}: {uid} is {want!r} in its account, the line holds "
                                 f"{have!r} and nothing is pending")


def check_private(workload, line, findings):
    if not line.private.sent:
        return
    book = read_book(workload, line, phones.PRIVATE, findings)
    if book is None:
        return
    allowed = {v if v is not None else frozenset() for v in line.private.allowed()}
    if frozenset(book.items()) not in allowed:
        kind = "lost" if line.private.acknowledged() else "diverged"
        findings.add(kind, f"{line.name}: private backup {sorted(book.items())} is none of "
                           "the books it sent since its last acknowledged one")
