"""The notification appendix of the review: what `assess scope --notification-pack` writes, from
the same scoping run as the exposure section (docs/report.md "The notification appendix").

The pack holds account ids, request ids, times, token counts and the method statement, never a
prompt or a response; its data still passes the review's redaction (:func:`redact`), so text
from logs could not slip in. Its four files are written beside the review under
``NOTIFICATION_FILES`` names and listed in the manifest.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from assess.report.models import NotificationAppendix
from assess.report.sections import redact

#: The pack's files (as `scope --notification-pack` names them) -> their names in the review.
NOTIFICATION_FILES = {
    "accounts.csv": "notification-accounts.csv",
    "requests.csv": "notification-requests.csv",
    "method.md": "notification-method.md",
    "pack.json": "notification-pack.json",
}
#: Accounts shown in the HTML/PDF appendix (all of them are in report.json and the CSV).
ACCOUNTS_SHOWN = 200
NOTE = (
    "per affected or at-risk account: first and last request, requests by role, disclosed "
    "tokens; the request ids are in notification-requests.csv. Built from the same run as the "
    "exposure section, so its totals add up to it. It holds no prompt or response text"
)
FROM_DOCUMENT = (
    "the logs were given as an `assess scope --json` document, which holds no per-request "
    "rows: it lists the affected and possibly affected request ids without their account or "
    "time, and the source set's requests only up to 1,000, so the per-account time ranges and "
    "request lists cannot be built from it. Run `assess report` with --logs the request logs "
    "themselves (and the same --platform-requests, --platform-tokens or "
    "--platform-mean-tokens and --served-by), or run `assess scope LOGS --notification-pack DIR` "
    "and keep DIR with the review"
)


def notification_appendix(
    pack: Mapping[str, str] | None, scoped: bool, include_prompts: bool
) -> NotificationAppendix | None:
    """Return the appendix of ``pack`` (None: logs given as a scope JSON), or None without
    logs (``scoped`` false)."""
    if not scoped:
        return None
    if pack is None:
        return NotificationAppendix(available=False, why_not=FROM_DOCUMENT, note=NOTE)
    data = json.loads(pack["pack.json"])
    return NotificationAppendix(
        available=True,
        accounts=redact(data["accounts"], include_prompts),
        method=redact(data["method"], include_prompts),
        files=sorted(NOTIFICATION_FILES.values()),
        note=NOTE,
    )


def notification_files(pack: Mapping[str, str] | None) -> dict[str, bytes]:
    """Return the pack's files under their names in the review (none without a pack)."""
    if pack is None:
        return {}
    return {NOTIFICATION_FILES[name]: text.encode("utf-8") for name, text in pack.items()}


def pack_json(pack: Mapping[str, str]) -> str:
    """Return ``pack.json`` of ``pack`` re-serialised with sorted keys (for comparisons)."""
    return json.dumps(json.loads(pack["pack.json"]), sort_keys=True)
