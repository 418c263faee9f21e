"""One HTTP request from the deployment's load namespace, as a phone sends
it: a new connection each time (a fault may have broken the last one)."""

import http.client
import json


class Answer:
    def __init__(self, status, body, content_type=""):
        self.status = status  # None: no answer (refused, reset, timed out)
        self.body = body
        self.content_type = content_type

    def is_problem(self):
        """An RFC 9457 problem: how the gateway says what went wrong."""
        return self.content_type.startswith("application/problem+json") and \
            isinstance(self.json(), dict) and "title" in self.json()

    def json(self):
        try:
            return json.loads(self.body) if self.body else None
        except ValueError:
            return None


def request(deployment, address, method, path, body=None, token=None,
            content_type="application/json", timeout=5.0):
    host, port = address.rsplit(":", 1)
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if body is not None:
        headers["Content-Type"] = content_type
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
        body = body.encode("utf-8")
    conn = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        with deployment.in_load():  # the socket stays in the namespace it was made in
            conn.connect()
        conn.request(method, path, body=body, headers=headers)
        r = conn.getresponse()
        return Answer(r.status, r.read().decode("utf-8", errors="replace"),
                      r.getheader("Content-Type", ""))
    except (OSError, http.client.HTTPException):
        return Answer(None, "")
    finally:
        conn.close()
