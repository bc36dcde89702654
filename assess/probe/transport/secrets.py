"""What every output shows of a secret: nothing, in any encoding; and of the base URL: no
credentials (``user:password@`` or query-string values such as ``?api-key=...``).

An endpoint may echo a key back URL-encoded (``%2F``, ``+``), JSON-escaped (``\\/``) or in
base64, so redaction replaces every such form of every secret, in one function used for every
message, excerpt and document written (:func:`redact_secret`).
"""

from __future__ import annotations

import base64
import json
import re
from urllib.parse import parse_qsl, quote, quote_plus, urlsplit, urlunsplit

SHORT_SECRET = 8  # shorter keys ("EMPTY", "k") are redacted only where they stand alone
REDACTED = "[redacted]"


def secret_forms(secret: str) -> list[str]:
    """Return ``secret`` and every form an endpoint may echo it in, longest first: URL-encoded
    (``quote`` with and without ``/`` safe, ``quote_plus``, lower-case escapes), JSON-escaped
    (``\\/``, ``\\uXXXX``) and base64 (standard and URL-safe, padded or not)."""
    forms = {secret}
    for encoded in (quote(secret, safe=""), quote(secret), quote_plus(secret)):
        forms.add(encoded)
        forms.add(re.sub(r"%[0-9A-F]{2}", lambda m: m.group(0).lower(), encoded))
    escaped = json.dumps(secret)[1:-1]
    forms.update(
        {escaped, escaped.replace("/", "\\/"), json.dumps(secret, ensure_ascii=True)[1:-1]}
    )
    raw = secret.encode("utf-8")
    for b64 in (base64.b64encode(raw), base64.urlsafe_b64encode(raw)):
        text = b64.decode("ascii")
        forms.update({text, text.rstrip("=")})
    return sorted((f for f in forms if f), key=len, reverse=True)


def redact_secret(text: str, secret: str) -> str:
    """Return ``text`` with every form of ``secret`` (:func:`secret_forms`) as ``[redacted]``.

    A form shorter than :data:`SHORT_SECRET` characters is replaced only where it is not part
    of a longer word, so a test key such as ``k`` does not turn "Check" into "Chec[redacted]".
    """
    if not secret:
        return text
    for form in secret_forms(secret):
        if len(form) >= SHORT_SECRET:
            text = text.replace(form, REDACTED)
        else:
            text = re.sub(rf"(?<![\w-]){re.escape(form)}(?![\w-])", REDACTED, text)
    return text


def url_secrets(url: str) -> list[str]:
    """Return the credentials a URL carries: user, password and every query-string value."""
    parts = urlsplit(url)
    found = [parts.username or "", parts.password or ""]
    found += [value for _, value in parse_qsl(parts.query, keep_blank_values=True)]
    return [secret for secret in found if secret]


def strip_credentials(url: str) -> str:
    """Return ``url`` as every output shows it: no ``user:password@``, query values redacted."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        return url
    host, slash, path = rest.partition("/")
    path, question, query = path.partition("?")
    if question:
        shown = [f"{name}={REDACTED}" if value else name for name, value in _pairs(query)]
        path += "?" + "&".join(shown)
    return f"{scheme}://{host.rpartition('@')[2]}{slash}{path}"


def _pairs(query: str) -> list[tuple[str, str]]:
    return [(name, value) for name, _, value in (p.partition("=") for p in query.split("&") if p)]


def join_url(base_url: str, path: str) -> str:
    """Return ``base_url`` with ``/path`` appended to its path, before any query string."""
    parts = urlsplit(base_url)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/" + path.lstrip("/")))


def without_query(base_url: str) -> tuple[str, dict[str, str]]:
    """Return ``base_url`` without its query string, and the query as a dict."""
    parts = urlsplit(base_url)
    query = dict(parse_qsl(parts.query, keep_blank_values=True))
    return urlunsplit(parts._replace(query="")), query
