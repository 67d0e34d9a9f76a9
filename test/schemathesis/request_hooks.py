"""Schemathesis hooks (SCHEMATHESIS_HOOKS=request_hooks), loaded by test/schemathesis/run.ts.

- Idempotency keys: every request with a well-formed Idempotency-Key gets a key of its own, as a
  client sends one per logical request. The generator would otherwise reuse short keys ("0") with
  different bodies, which the API rightly answers with 422, hiding what the request itself would
  get. Malformed keys are left alone, so the negative phase still checks that they are refused.
  Replays, conflicts and concurrent duplicates are tested in test/ with counted results.
- Meeting times: a planned end before the start is moved after it (see _end_after_start).
- The dashboard's CSRF header.
"""

import os
import re
import uuid
from datetime import datetime, timedelta

import schemathesis

WELL_FORMED = re.compile(r'^(?:"[\x21-\x7e]{1,255}"|[\x21\x23-\x7e][\x21-\x7e]{0,254})$')


@schemathesis.hook
def before_call(context, case, kwargs):
    _end_after_start(case)
    headers = case.headers if case.headers is not None else {}
    case.headers = headers
    # The dashboard's CSRF header beside its session cookie (configured in schemathesis.toml), as the
    # dashboard page sends it. Without the cookie (the auth checks' probes) it changes nothing.
    security = case.operation.definition.raw.get("security") or []
    if any("DashboardSession" in requirement for requirement in security) and not any(name.lower() == "x-csrf-token" for name in headers):
        headers["X-CSRF-Token"] = os.environ["SVC_CSRF_TOKEN"]
    for name in list(headers):
        if name.lower() == "idempotency-key" and isinstance(headers[name], str) and WELL_FORMED.match(headers[name]):
            headers[name] = f'"{uuid.uuid4()}"'


def _instant(value):
    try:
        return datetime.fromisoformat(value) if isinstance(value, str) else None
    except ValueError:
        return None


def _end_after_start(case):
    """A meeting's planned end must come after its start: a rule between two fields that JSON Schema
    cannot state (the document says it in words). A body that breaks it gets an end 30 minutes after
    its start; the rule itself is tested in test/meeting with its 400."""
    body = case.body
    if not case.operation.path.startswith("/meeting") or not isinstance(body, dict):
        return
    start, end = _instant(body.get("start")), _instant(body.get("end"))
    if start is None or end is None or (start.tzinfo is None) != (end.tzinfo is None) or end > start:
        return
    body["end"] = (start + timedelta(minutes=30)).isoformat()


