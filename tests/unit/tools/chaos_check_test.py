#!/usr/bin/env python3
"""ctest tools_chaos_check: the checks tools/chaos runs after healing
(tools/chaoslib/verify.py), on made-up answers instead of a deployment. Each
kind of finding it reports must be found when the answers show it, and
nothing when they are right: a harness that cannot fail proves nothing."""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "tools"))

from chaoslib import http, phones, verify  # noqa: E402


class FakeWorkload:
    """Answers as a deployment would: each carrier's shared store of the one
    person, each line's pending mailbox and private backup."""

    def __init__(self, person, stores, pending=None, private=None):
        self.persons = [person]
        self.stores = stores
        self.pending = pending or {}
        self.private = private or {}
        self.anomalies = []

    def send(self, line, method, path):
        book = (self.private.get(line.msisdn, {}) if "scope=private" in path
                else self.stores[line.carrier])
        return http.Answer(200, "".join(phones.card(u, v) for u, v in book.items()))

    def fetch(self, line):
        cards, removed = self.pending.get(line.msisdn, ([], []))
        return 200, ("7", list(cards), list(removed))


def two_lines():
    """One person: the line at carrier-a made contact u1 (v1, acknowledged);
    the line at carrier-b has not taken it yet."""
    person = phones.Person("P", "id")
    owner = phones.Line(person, "carrier-a", "+1", "i1", keeper=False, late=False)
    other = phones.Line(person, "carrier-b", "+2", "i2", keeper=True, late=False)
    for line in (owner, other):
        line.token = "t"
        person.lines.append(line)
    owner.own["u1"] = phones.Attempts()
    owner.own["u1"].add("v1", True)
    owner.local["u1"] = "v1"
    return person, owner, other


def findings(workload):
    return verify.check(workload)


def agreeing(**extra):
    """Both carriers' stores: u1 as its line sent it, and `extra`."""
    book = {"u1": "v1", **extra}
    return {"carrier-a": dict(book), "carrier-b": dict(book)}


class ChaosCheck(unittest.TestCase):
    def test_a_change_pending_at_the_other_line_is_clean(self):
        person, _, other = two_lines()
        f = findings(FakeWorkload(person, agreeing(),
                                  {other.msisdn: ([("u1", "v1")], [])}))
        self.assertTrue(f.clean, f.details)

    def test_a_store_without_an_acknowledged_change_is_lost_and_diverged(self):
        person, _, other = two_lines()
        f = findings(FakeWorkload(person, {"carrier-a": {"u1": "v1"}, "carrier-b": {}}))
        self.assertGreaterEqual(f.lost, 1, f.details)
        self.assertEqual(f.diverged, 1, f.details)

    def test_a_change_neither_applied_nor_pending_is_lost(self):
        person, _, _ = two_lines()
        f = findings(FakeWorkload(person, agreeing()))
        self.assertEqual(f.lost, 1, f.details)

    def test_a_change_discarded_by_the_line_is_not_lost(self):
        person, _, other = two_lines()
        other.discarded["u1"] = {"v1"}
        f = findings(FakeWorkload(person, agreeing()))
        self.assertTrue(f.clean, f.details)

    def test_a_change_pending_after_it_was_applied_is_duplicated(self):
        person, _, other = two_lines()
        other.local["u1"] = "v1"
        f = findings(FakeWorkload(person, agreeing(),
                                  {other.msisdn: ([("u1", "v1")], [])}))
        self.assertEqual(f.duplicated, 1, f.details)

    def test_a_change_pending_twice_is_duplicated(self):
        person, _, other = two_lines()
        f = findings(FakeWorkload(person, agreeing(),
                                  {other.msisdn: ([("u1", "v1"), ("u1", "v1")], [])}))
        self.assertEqual(f.duplicated, 1, f.details)

    def test_its_own_change_offered_back_to_a_line_is_duplicated(self):
        person, owner, other = two_lines()
        f = findings(FakeWorkload(person, agreeing(),
                                  {owner.msisdn: ([("u1", "v1")], []),
                                   other.msisdn: ([("u1", "v1")], [])}))
        self.assertEqual(f.duplicated, 1, f.details)

    def test_an_older_version_pending_is_stale(self):
        person, _, other = two_lines()
        other.local["u1"] = "v0"
        f = findings(FakeWorkload(person, agreeing(),
                                  {other.msisdn: ([("u1", "v0b")], [])}))
        self.assertEqual(f.stale, 1, f.details)

    def test_a_value_sent_after_the_last_acknowledged_one_may_have_landed(self):
        person, owner, other = two_lines()
        owner.own["u1"].add("v2", False)
        stores = {"carrier-a": {"u1": "v2"}, "carrier-b": {"u1": "v2"}}
        f = findings(FakeWorkload(person, stores, {other.msisdn: ([("u1", "v2")], [])}))
        self.assertTrue(f.clean, f.details)
        owner.own["u1"].add("v3", True)
        f = findings(FakeWorkload(person, stores, {other.msisdn: ([("u1", "v2")], [])}))
        self.assertEqual(f.lost, 2, f.details)  # v3 was acknowledged: at both carriers

    def test_a_contact_no_line_sent_is_diverged(self):
        person, _, other = two_lines()
        stores = agreeing(ghost="x")
        f = findings(FakeWorkload(person, stores,
                                  {other.msisdn: ([("u1", "v1"), ("ghost", "x")], [])}))
        self.assertEqual(f.diverged, 2, f.details)

    def test_a_private_backup_older_than_the_last_acknowledged_is_lost(self):
        person, owner, _ = two_lines()
        first, second = frozenset({("p1", "a")}), frozenset({("p1", "b")})
        owner.private.add(first, True)
        owner.private.add(second, True)
        stores = agreeing()
        pending = {"+2": ([("u1", "v1")], [])}
        f = findings(FakeWorkload(person, stores, pending, {owner.msisdn: dict(second)}))
        self.assertTrue(f.clean, f.details)
        f = findings(FakeWorkload(person, stores, pending, {owner.msisdn: dict(first)}))
        self.assertEqual(f.lost, 1, f.details)

    def test_a_refusal_without_a_problem_body_is_unclear(self):
        problem = http.Answer(503, '{"title":"busy","status":503}', "application/problem+json")
        self.assertTrue(problem.is_problem())
        self.assertFalse(http.Answer(503, "busy", "text/plain").is_problem())
        person, _, other = two_lines()
        workload = FakeWorkload(person, agreeing(),
                                {other.msisdn: ([("u1", "v1")], [])})
        workload.anomalies.append(("unclear", "+2@carrier-b: POST /v1/lines/+2/contacts "
                                  "answered 503 without a problem body"))
        f = findings(workload)
        self.assertEqual(f.unclear, 1, f.details)
        self.assertFalse(f.clean)


if __name__ == "__main__":
    unittest.main()
