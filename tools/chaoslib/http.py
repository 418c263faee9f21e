"""One HTTP request from the deployment's load namespace, as a phone sends
it: a new connection each time (a fault may have broken the last one)."""

import http.client
import json


class Answer:
    def __init__(self, status, body):
        self.status = status  # None: no answer (refused, reset, timed out)
        self.body = body

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
        return Answer(r.status, r.read().decode("utf-8", errors="replace"))
    except (OSError, http.client.HTTPException):
        return Answer(None, "")
    finally:
        conn.close()
