"""Schemathesis hook (SCHEMATHESIS_HOOKS=idempotency_keys), loaded by test/schemathesis/run.ts.

Every request with a well-formed Idempotency-Key gets a key of its own, as a client sends one per
logical request. The generator would otherwise reuse short keys ("0") with different bodies, which
the API rightly answers with 422, hiding what the request itself would get. Malformed keys are left
alone, so the negative phase still checks that they are refused. Replays, conflicts and concurrent
duplicates are tested in test/ with counted results.
"""

import re
import uuid

import schemathesis

WELL_FORMED = re.compile(r'^(?:"[\x21-\x7e]{1,255}"|[\x21\x23-\x7e][\x21-\x7e]{0,254})$')


@schemathesis.hook
def before_call(context, case, kwargs):
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key" and isinstance(headers[name], str) and WELL_FORMED.match(headers[name]):
            headers[name] = f'"{uuid.uuid4()}"'
