"""Write the export-variant fixtures: `python -m tests.presets.make_variants`.

Formatting only: every record below is written out literally, with the field names each product's
own source or docs give (the table in tests/presets/variants/README.md says where each comes from),
never from our presets. The expected answers in tests/presets/expected/<fixture>.json were counted
by hand from these literals.

Every fixture uses the glm-5.3-kv-leak advisory: window 2026-08-27T00:00:00Z to
2026-09-09T23:59:59Z, affected when prompt tokens > 681,280.
"""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent / "variants"
SAMPLES = Path(__file__).resolve().parents[2] / "samples" / "logs"


def _line(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _jsonl(path: Path, records: list[Any]) -> None:
    path.write_text("".join(_line(r) + "\n" for r in records))


def _pretty(path: Path, doc: Any) -> None:
    path.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")


def _csv(path: Path, header: list[str], rows: list[list[str]]) -> None:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    path.write_text(buf.getvalue())


# ------------------------------------------------------------------------------------ Langfuse
def langfuse_api_v2() -> None:
    """GET /api/public/v2/observations: one page, {"data": [...], "meta": {...}}, camelCase."""
    data = [
        {
            "id": "lf2-o1",
            "traceId": "t1",
            "type": "GENERATION",
            "startTime": "2026-09-01T10:00:00.000Z",
            "providedModelName": "z-ai/glm-5.3",
            "usageDetails": {"input": 700000, "output": 120},
            "userId": "acct-a",
            "sessionId": "s1",
            "level": "DEFAULT",
        },
        {
            "id": "lf2-o2",
            "traceId": "t1",
            "type": "SPAN",
            "startTime": "2026-09-01T09:59:59.000Z",
            "providedModelName": None,
            "usageDetails": {},
            "userId": "acct-a",
            "sessionId": "s1",
            "level": "DEFAULT",
        },
        # a failed generation: the provider returned an error, no usage was ingested
        {
            "id": "lf2-o3",
            "traceId": "t2",
            "type": "GENERATION",
            "startTime": "2026-09-02T08:00:00.000Z",
            "providedModelName": "glm-5.3",
            "usageDetails": {},
            "userId": "acct-b",
            "sessionId": "s2",
            "level": "ERROR",
            "statusMessage": "upstream 503",
        },
        {
            "id": "lf2-o4",
            "traceId": "t2",
            "type": "GENERATION",
            "startTime": "2026-09-02T08:01:00.000Z",
            "providedModelName": "glm-5.3-flash",
            "usageDetails": {"input": 900000},
            "userId": "acct-b",
            "sessionId": "s2",
            "level": "DEFAULT",
        },
        {
            "id": "lf2-o5",
            "traceId": "t3",
            "type": "GENERATION",
            "startTime": "2026-09-03T12:00:00.000Z",
            "providedModelName": "glm-5.3",
            "usageDetails": {"input": 681280},
            "userId": "acct-c",
            "sessionId": "s3",
            "level": "DEFAULT",
        },
        {
            "id": "lf2-o6",
            "traceId": "t4",
            "type": "GENERATION",
            "startTime": "2026-08-26T23:59:59.000Z",
            "providedModelName": "glm-5.3",
            "usageDetails": {"input": 900000},
            "userId": "acct-a",
            "sessionId": "s4",
            "level": "DEFAULT",
        },
        {
            "id": "lf2-o7",
            "traceId": "t5",
            "type": "GENERATION",
            "startTime": "2026-09-09T23:59:59.000Z",
            "providedModelName": "zai-org/GLM-5.3",
            "usageDetails": {"input": 900000},
            "userId": None,
            "sessionId": "s5",
            "level": "DEFAULT",
        },
        {
            "id": "lf2-o8",
            "traceId": "t5",
            "type": "EVENT",
            "startTime": "2026-09-09T23:59:59.000Z",
            "providedModelName": None,
            "userId": None,
            "sessionId": "s5",
            "level": "DEFAULT",
        },
    ]
    _pretty(HERE / "langfuse-api-v2-page.json", {"data": data, "meta": {"cursor": "eyJwIjoyfQ"}})


_LF_V2_HEADER = [
    "id",
    "trace_id",
    "project_id",
    "environment",
    "type",
    "parent_observation_id",
    "start_time",
    "end_time",
    "name",
    "metadata",
    "level",
    "status_message",
    "provided_model_name",
    "usage_details",
    "cost_details",
    "total_cost",
    "user_id",
    "session_id",
    "trace_name",
]


def _lf_v2_rows() -> list[dict[str, Any]]:
    """observations_v2/ rows (enriched): trace fields user_id / session_id on every row."""

    def row(
        i: str,
        trace: str,
        kind: str,
        start: str,
        model: str,
        usage: dict[str, int],
        user: str,
        session: str,
        level: str = "DEFAULT",
        meta: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        return {
            "id": i,
            "trace_id": trace,
            "project_id": "cm0proj01",
            "environment": "production",
            "type": kind,
            "parent_observation_id": "",
            "start_time": start,
            "end_time": None,
            "name": "call",
            "metadata": meta or {},
            "level": level,
            "status_message": "",
            "provided_model_name": model,
            "usage_details": usage,
            "cost_details": {},
            "total_cost": 0.0,
            "user_id": user,
            "session_id": session,
            "trace_name": "contracts",
        }

    return [
        row(
            "lfb-o1",
            "t1",
            "GENERATION",
            "2026-09-01 10:00:00.000000",
            "glm-5.3",
            {"input": 700000, "output": 10},
            "acct-a",
            "s1",
        ),
        # the export writes "" for a span's model and an empty usage map
        row("lfb-o2", "t1", "SPAN", "2026-09-01 09:59:59.000000", "", {}, "acct-a", "s1"),
        row(
            "lfb-o3",
            "t2",
            "GENERATION",
            "2026-09-02 08:00:00.000000",
            "glm-5.3",
            {},
            "acct-b",
            "s2",
            level="ERROR",
        ),
        row(
            "lfb-o4",
            "t2",
            "GENERATION",
            "2026-09-02 08:01:00.000000",
            "glm-5.3-flash",
            {"input": 900000},
            "acct-b",
            "s2",
        ),
        row(
            "lfb-o5",
            "t3",
            "GENERATION",
            "2026-09-03 12:00:00.000000",
            "glm-5.3",
            {"input": 681280},
            "acct-c",
            "s3",
        ),
        row(
            "lfb-o6",
            "t4",
            "GENERATION",
            "2026-08-26 23:59:59.999999",
            "glm-5.3",
            {"input": 900000},
            "acct-a",
            "s4",
        ),
        # user_id "" (no user on the trace): unattributed
        row(
            "lfb-o7",
            "t5",
            "GENERATION",
            "2026-09-09 23:59:59.000000",
            "zai-org/GLM-5.3",
            {"input": 900000, "input_cached_tokens": 0},
            "",
            "s5",
            meta={"user": "not-the-user"},
        ),
        row("lfb-o8", "t5", "EVENT", "2026-09-09 23:59:59.000000", "", {}, "", "s5"),
    ]


def langfuse_blob_v2() -> None:
    """observations_v2/ in JSONL (tests) and CSV (samples/logs, user-facing)."""
    rows = _lf_v2_rows()
    _jsonl(HERE / "langfuse-observations_v2.jsonl", rows)
    _pretty(HERE / "langfuse-observations_v2.json", rows)  # file type JSON: one array
    cells = []
    for r in rows:
        line = []
        for name in _LF_V2_HEADER:
            value = r[name]
            if isinstance(value, dict):
                line.append(json.dumps(value, separators=(",", ":")))  # objects: JSON-encoded
            elif value is None:
                line.append("")  # null: empty field
            else:
                line.append(str(value))
        cells.append(line)
    _csv(SAMPLES / "langfuse-observations_v2.csv", _LF_V2_HEADER, cells)


def langfuse_blob_legacy() -> None:
    """Legacy traces/ + observations/: observations carry no user_id, joined on trace_id."""
    obs = []
    for r in _lf_v2_rows():
        legacy = {k: v for k, v in r.items() if k not in ("user_id", "session_id", "trace_name")}
        legacy["parent_observation_id"] = None
        legacy["provided_model_name"] = legacy["provided_model_name"] or None
        obs.append(legacy)
    traces = [
        {
            "id": "t1",
            "timestamp": "2026-09-01 09:59:59.000000",
            "name": "contracts",
            "environment": "production",
            "project_id": "cm0proj01",
            "metadata": {},
            "user_id": "acct-a",
            "session_id": "s1",
            "release": None,
            "version": None,
            "public": False,
            "bookmarked": False,
            "tags": [],
            "input": None,
            "output": None,
        },
        {
            "id": "t2",
            "timestamp": "2026-09-02 08:00:00.000000",
            "name": "contracts",
            "environment": "production",
            "project_id": "cm0proj01",
            "metadata": {},
            "user_id": "acct-b",
            "session_id": "s2",
            "release": None,
            "version": None,
            "public": False,
            "bookmarked": False,
            "tags": [],
            "input": None,
            "output": None,
        },
        {
            "id": "t3",
            "timestamp": "2026-09-03 12:00:00.000000",
            "name": "contracts",
            "environment": "production",
            "project_id": "cm0proj01",
            "metadata": {},
            "user_id": "acct-c",
            "session_id": "s3",
            "release": None,
            "version": None,
            "public": False,
            "bookmarked": False,
            "tags": [],
            "input": None,
            "output": None,
        },
        {
            "id": "t5",
            "timestamp": "2026-09-09 23:59:59.000000",
            "name": "contracts",
            "environment": "production",
            "project_id": "cm0proj01",
            "metadata": {},
            "user_id": None,
            "session_id": "s5",
            "release": None,
            "version": None,
            "public": False,
            "bookmarked": False,
            "tags": [],
            "input": None,
            "output": None,
        },
    ]
    folder = HERE / "langfuse-legacy"
    folder.mkdir(exist_ok=True)
    _jsonl(folder / "observations.jsonl", obs)
    _jsonl(folder / "traces.jsonl", traces)


# ---------------------------------------------------------------------------------- OpenRouter
def openrouter() -> None:
    """GET /api/v1/generation?id=... saved one response per line: {"data": {...}}."""

    def gen(
        i: str,
        created: str,
        model: str,
        native: int | None,
        normalised: int | None,
        user: str | None,
        finish: str | None = "stop",
        cancelled: bool = False,
    ) -> dict[str, Any]:
        return {
            "data": {
                "id": i,
                "upstream_id": "chatcmpl-" + i,
                "total_cost": 0.1,
                "cache_discount": None,
                "created_at": created,
                "model": model,
                "app_id": None,
                "streamed": True,
                "cancelled": cancelled,
                "provider_name": "Z.AI",
                "latency": 900,
                "generation_time": 800,
                "moderation_latency": None,
                "finish_reason": finish,
                "native_finish_reason": finish,
                "tokens_prompt": normalised,
                "tokens_completion": 10,
                "native_tokens_prompt": native,
                "native_tokens_completion": 11,
                "native_tokens_reasoning": 0,
                "num_media_prompt": None,
                "num_media_completion": None,
                "num_search_results": None,
                "origin": "",
                "usage": 0.1,
                "is_byok": False,
                "external_user": user,
                "api_type": "completions",
                "router": None,
            }
        }

    lines = [
        # normalised count over the threshold, native under: not affected
        gen("gen-v1", "2026-09-01T10:00:00.000000+00:00", "z-ai/glm-5.3", 681000, 700000, "acct-a"),
        # native over, normalised under: affected
        gen("gen-v2", "2026-09-01T11:00:00.000000+00:00", "z-ai/glm-5.3", 700000, 650000, "acct-a"),
        # cancelled by the client before usage came back: a request, tokens unknown
        gen(
            "gen-v3",
            "2026-09-02T00:00:00.000000+00:00",
            "z-ai/glm-5.3",
            None,
            None,
            "acct-b",
            finish=None,
            cancelled=True,
        ),
        gen(
            "gen-v4",
            "2026-09-02T01:00:00.000000+00:00",
            "z-ai/glm-5.3-flash",
            900000,
            900000,
            "acct-b",
        ),
        gen("gen-v5", "2026-08-26T23:59:59.000000+00:00", "z-ai/glm-5.3", 900000, 900000, "acct-a"),
        gen(
            "gen-v6", "2026-09-09T23:59:59.000000+00:00", "z-ai/glm-5.3:free", 800000, 760000, None
        ),
    ]
    _jsonl(HERE / "openrouter-generation-envelope.jsonl", lines)
    # the TypeScript SDK's GenerationResponse objects (camelCase), saved as a JSON array
    sdk = []
    for item in lines[:3]:
        d = item["data"]
        sdk.append(
            {
                "data": {
                    "id": d["id"].replace("gen-v", "gen-sdk"),
                    "createdAt": d["created_at"],
                    "model": d["model"],
                    "cancelled": d["cancelled"],
                    "finishReason": d["finish_reason"],
                    "tokensPrompt": d["tokens_prompt"],
                    "nativeTokensPrompt": d["native_tokens_prompt"],
                    "tokensCompletion": 10,
                    "nativeTokensCompletion": 11,
                    "externalUser": d["external_user"],
                    "providerName": "Z.AI",
                    "totalCost": 0.1,
                    "streamed": True,
                    "isByok": False,
                }
            }
        )
    _pretty(SAMPLES / "openrouter-sdk-generations.json", sdk)


# -------------------------------------------------------------------------- Cloudflare AI Gateway
def _cf_item(
    i: str,
    created: str,
    model: str,
    tokens: int | None,
    meta: str | None,
    status: int = 200,
    success: bool = True,
    cached: bool = False,
) -> dict[str, Any]:
    item: dict[str, Any] = {
        "id": i,
        "cached": cached,
        "created_at": created,
        "custom_cost": False,
        "duration": 1200,
        "model": model,
        "model_type": "text-generation",
        "path": "workers-ai/" + model,
        "provider": "workers-ai",
        "request_content_type": "application/json",
        "request_type": "chat",
        "response_content_type": "application/json",
        "status_code": status,
        "step": 0,
        "success": success,
        "tokens_out": 10,
        "cost": 0.0,
    }
    if tokens is not None:
        item["tokens_in"] = tokens
    if meta is not None:
        item["metadata"] = meta  # the logs API returns metadata as a JSON-encoded string
    return item


def cloudflare_logs_api() -> None:
    """GET .../ai-gateway/gateways/{id}/logs: a {"result": [...]} page (pretty, as curl | jq
    saves it) and pages saved one per line."""
    page = {
        "result": [
            _cf_item(
                "cf-v1",
                "2026-09-01T10:00:00Z",
                "@cf/zai-org/glm-5.3",
                700000,
                '{"user":"acct-a","team":"search"}',
            ),
            # cached responses are still requests
            _cf_item(
                "cf-v2",
                "2026-09-01T10:05:00Z",
                "@cf/zai-org/glm-5.3",
                800000,
                '{"user":"acct-b"}',
                cached=True,
            ),
            # a failed call: status 500, the gateway logged 0 tokens in
            _cf_item(
                "cf-v3",
                "2026-09-01T10:06:00Z",
                "@cf/zai-org/glm-5.3",
                0,
                '{"user":"acct-b"}',
                status=500,
                success=False,
            ),
            _cf_item(
                "cf-v4",
                "2026-09-01T10:07:00Z",
                "@cf/zai-org/glm-5.3-flash",
                900000,
                '{"user":"acct-a"}',
            ),
            _cf_item(
                "cf-v5", "2026-08-26T23:59:59Z", "@cf/zai-org/glm-5.3", 900000, '{"user":"acct-a"}'
            ),
            # no cf-aig-metadata header on this request
            _cf_item("cf-v6", "2026-09-09T23:59:59Z", "@cf/zai-org/glm-5.3", 681281, None),
        ],
        "result_info": {"count": 6, "page": 1, "per_page": 50, "total_count": 6},
        "success": True,
        "errors": [],
        "messages": [],
    }
    _pretty(SAMPLES / "cloudflare-ai-gateway-logs-page.json", page)
    first = {
        "result": page["result"][:3],
        "result_info": {"page": 1, "per_page": 3},
        "success": True,
        "errors": [],
        "messages": [],
    }
    second = {
        "result": page["result"][3:],
        "result_info": {"page": 2, "per_page": 3},
        "success": True,
        "errors": [],
        "messages": [],
    }
    empty = {
        "result": [],
        "result_info": {"page": 3, "per_page": 3},
        "success": True,
        "errors": [],
        "messages": [],
    }
    _jsonl(HERE / "cloudflare-logs-pages.ndjson", [first, second, empty])
    # a page's items written out one per line: metadata stays a JSON-encoded string
    _jsonl(HERE / "cloudflare-logs-items.ndjson", page["result"])


def cloudflare_logpush() -> None:
    """Logpush dataset ai_gateway_events: PascalCase, Timestamp RFC 3339 or unix nanoseconds,
    Metadata an object, no token count documented."""

    def event(
        ts: Any, model: str, requested: str, status: int, meta: dict[str, Any], cached: bool = False
    ) -> dict[str, Any]:
        return {
            "Cached": cached,
            "Endpoint": "chat/completions",
            "Gateway": "prod-gw",
            "Metadata": meta,
            "Metrics": {"cost": 0.01, "durationMs": 1234},
            "Model": model,
            "Provider": "workers-ai",
            "RateLimited": False,
            "RequestBody": {"type": "encrypted", "data": "ZW5j"},
            "RequestedModel": requested,
            "ResponseBody": {"type": "encrypted", "data": "ZW5j"},
            "RoutingDecisionID": "",
            "RoutingReason": "",
            "StatusCode": status,
            "Timestamp": ts,
        }

    lines = [
        event(
            "2026-09-01T10:00:00Z",
            "@cf/zai-org/glm-5.3",
            "@cf/zai-org/glm-5.3",
            200,
            {"user_id": "acct-a"},
        ),
        # routed: asked for cloudflare/auto, served by glm-5.3
        event(
            1788256800000000000,
            "@cf/zai-org/glm-5.3",
            "cloudflare/auto",
            200,
            {"user_id": "acct-b"},
        ),
        event(
            "2026-09-01T10:00:00Z",
            "@cf/zai-org/glm-5.3-flash",
            "@cf/zai-org/glm-5.3-flash",
            200,
            {"user_id": "acct-a"},
        ),
        event("2026-09-10T00:00:00Z", "@cf/zai-org/glm-5.3", "@cf/zai-org/glm-5.3", 200, {}),
        event("2026-09-02T00:00:00Z", "@cf/zai-org/glm-5.3", "@cf/zai-org/glm-5.3", 429, {}),
    ]
    _jsonl(HERE / "cloudflare-logpush-ai_gateway_events.ndjson", lines)


# ------------------------------------------------------------------------------ new-api / one-api
_NEWAPI_COLS = [
    "id",
    "user_id",
    "created_at",
    "type",
    "content",
    "username",
    "token_name",
    "model_name",
    "quota",
    "prompt_tokens",
    "completion_tokens",
    "use_time",
    "is_stream",
    "channel_id",
    "token_id",
    "group",
    "ip",
    "other",
]


def new_api() -> None:
    """The logs table (model/log.go): types 0 unknown, 1 top-up, 2 consume, 3 manage, 4 system,
    5 error (RecordErrorLog writes prompt_tokens 0), 6 refund. CSV export and the /api/log/ page."""

    def row(
        i: int,
        user: int,
        ts: int,
        kind: int,
        content: str,
        name: str,
        model: str,
        quota: int,
        tokens: int,
        other: str = "",
    ) -> list[str]:
        return [
            str(i),
            str(user),
            str(ts),
            str(kind),
            content,
            name,
            "contracts-key",
            model,
            str(quota),
            str(tokens),
            "10",
            "30",
            "false",
            "3",
            "41",
            "default",
            "",
            other,
        ]

    mid = 1788256800  # 2026-09-01T10:00:00Z
    rows = [
        row(1, 7, mid, 2, "model ratio 1.0", "acct-a", "glm-5.3", 3500, 700000),
        row(
            2,
            7,
            mid + 60,
            5,
            "upstream error: status 500",
            "acct-a",
            "glm-5.3",
            0,
            0,
            '{"error_type":"upstream_error","status_code":500}',
        ),
        row(3, 8, mid + 120, 1, "top-up 50.00 USD", "acct-b", "", 25000000, 0),
        row(4, 1, mid + 180, 3, "admin set quota", "root", "", 0, 0),
        row(5, 1, mid + 240, 4, "system notice", "root", "", 0, 0),
        row(6, 8, mid + 300, 6, "refund of failed task", "acct-b", "glm-5.3", 3500, 0),
        row(7, 8, mid + 360, 0, "", "acct-b", "glm-5.3", 0, 900000),
        row(8, 8, mid + 420, 2, "model ratio 1.0", "acct-b", "glm-5.3-flash", 3500, 900000),
        row(9, 8, 1787788799, 2, "model ratio 1.0", "acct-b", "glm-5.3", 3500, 900000),
        row(10, 9, mid + 480, 2, "model ratio 1.0", "acct-c", "zai-org/GLM-5.3", 3500, 681280),
    ]
    _csv(HERE / "new-api-logs-types.csv", _NEWAPI_COLS, rows)
    # GET /api/log/?p=1: {"success", "message", "data": {"page", "page_size", "total", "items"}}
    items = []
    for cells in rows[:3]:
        item: dict[str, Any] = dict(zip(_NEWAPI_COLS, cells, strict=True))
        for key in (
            "id",
            "user_id",
            "created_at",
            "type",
            "quota",
            "prompt_tokens",
            "completion_tokens",
            "use_time",
            "channel_id",
            "token_id",
        ):
            item[key] = int(item[key])
        item["is_stream"] = False
        items.append(item)
    _pretty(
        HERE / "new-api-log-page.json",
        {
            "success": True,
            "message": "",
            "data": {"page": 1, "page_size": 10, "total": 3, "items": items},
        },
    )


# --------------------------------------------------------------------------------------- LiteLLM
def litellm() -> None:
    """StandardLoggingPayload lines, one with status failure
    (BerriAI/litellm docs/my-website/docs/proxy/logging_spec.md)."""

    def payload(
        i: str,
        start: float,
        model: str,
        tokens: int,
        key: str | None,
        status: str = "success",
        error: str | None = None,
        call_type: str = "acompletion",
    ) -> dict[str, Any]:
        return {
            "id": i,
            "trace_id": "tr-" + i,
            "call_type": call_type,
            "response_cost": 0.0,
            "status": status,
            "total_tokens": tokens,
            "prompt_tokens": tokens,
            "completion_tokens": 0,
            "startTime": start,
            "endTime": start + 3.5,
            "completionStartTime": start + 1.0,
            "model": model,
            "model_id": "a1b2c3",
            "model_group": "glm",
            "api_base": "https://openrouter.ai/api/v1",
            "metadata": {
                "user_api_key_hash": key,
                "user_api_key_user_id": None,
                "user_api_key_team_id": "team-1",
            },
            "cache_hit": None,
            "request_tags": [],
            "end_user": None,
            "messages": [{"role": "user", "content": "..."}],
            "response": None,
            "error_str": error,
        }

    mid = 1788256800.25
    lines = [
        payload("lt-v1", mid, "openrouter/z-ai/glm-5.3", 700000, "hash-a"),
        # a failed call: LiteLLM logs the payload with status failure and no usage
        payload(
            "lt-v2",
            mid + 10,
            "openrouter/z-ai/glm-5.3",
            0,
            "hash-b",
            status="failure",
            error="litellm.RateLimitError: 429",
        ),
        payload("lt-v3", mid + 20, "openrouter/z-ai/glm-5.3-flash", 900000, "hash-a"),
        payload("lt-v4", 1787788799.5, "openrouter/z-ai/glm-5.3", 900000, "hash-a"),
        payload("lt-v5", mid + 30, "openrouter/z-ai/glm-5.3", 681280, "hash-b"),
        payload("lt-v6", mid + 40, "mcp: search", 0, "hash-a", call_type="call_mcp_tool"),
    ]
    _jsonl(HERE / "litellm-standard-payload-failures.ndjson", lines)


# -------------------------------------------------------------------------------------- Helicone
def helicone() -> None:
    """The export tool's CSV (examples/export/typescript/index.ts: fixed columns, object cells
    JSON-encoded with their quotes doubled before CSV quoting) and a raw query page
    {"data": [...], "error": null} (POST /v1/request/query-clickhouse)."""
    header = [
        "response_id",
        "response_created_at",
        "response_status",
        "request_created_at",
        "request_body",
        "request_properties",
        "request_user_id",
        "model",
        "prompt_tokens",
        "completion_tokens",
        "latency",
        "cost",
    ]

    def props(session: str) -> str:
        # what index.ts writes: JSON.stringify(value).replace(/"/g, '""') inside the cell
        return json.dumps({"Helicone-Session-Id": session}, separators=(",", ":")).replace(
            '"', '""'
        )

    rows = [
        [
            "resp-h1",
            "2026-09-01T10:00:31.000Z",
            "200",
            "2026-09-01T10:00:00.000Z",
            "",
            props("s1"),
            "acct-a",
            "z-ai/glm-5.3",
            "700000",
            "10",
            "31000",
            "0.3",
        ],
        [
            "resp-h2",
            "2026-09-01T10:00:31.000Z",
            "500",
            "2026-09-01T10:00:30.000Z",
            "",
            props("s2"),
            "acct-b",
            "z-ai/glm-5.3",
            "",
            "",
            "1000",
            "0",
        ],
        [
            "resp-h3",
            "2026-09-01T10:01:00.000Z",
            "200",
            "2026-09-01T10:00:40.000Z",
            "",
            props("s1"),
            "acct-a",
            "z-ai/glm-5.3-flash",
            "900000",
            "10",
            "20000",
            "0.3",
        ],
        [
            "resp-h4",
            "2026-08-27T00:00:01.000Z",
            "200",
            "2026-08-26T23:59:59.000Z",
            "",
            props("s3"),
            "acct-a",
            "z-ai/glm-5.3",
            "900000",
            "10",
            "2000",
            "0.3",
        ],
        [
            "resp-h5",
            "2026-09-02T00:00:09.000Z",
            "200",
            "2026-09-02T00:00:00.000Z",
            "",
            props("s4"),
            "",
            "z-ai/glm-5.3",
            "681281",
            "10",
            "9000",
            "0.3",
        ],
    ]
    _csv(HERE / "helicone-export.csv", header, rows)
    page = {
        "data": [
            {
                "request_id": "req-hp1",
                "request_created_at": "2026-09-01T10:00:00.000Z",
                "request_model": "z-ai/glm-5.3",
                "response_model": "z-ai/glm-5.3",
                "request_user_id": "acct-a",
                "prompt_tokens": 700000,
                "completion_tokens": 10,
                "response_status": 200,
                "provider": "OPENROUTER",
                "request_properties": {"Helicone-Session-Id": "s1"},
            },
            {
                "request_id": "req-hp2",
                "request_created_at": "2026-09-01T10:00:00.000Z",
                "request_model": "z-ai/glm-5.3",
                "response_model": None,
                "request_user_id": "acct-b",
                "prompt_tokens": None,
                "completion_tokens": None,
                "response_status": -1,
                "provider": "OPENROUTER",
                "request_properties": {},
            },
        ],
        "error": None,
    }
    _pretty(HERE / "helicone-query-page.json", page)


# --------------------------------------------------------------------------------------- Portkey
def portkey() -> None:
    """Logs export JSONL (product/observability/logs-export): is_success 0/1, req_units,
    flat column names such as request.body."""

    def rec(
        i: str, created: str, model: str, units: int, ok: int, status: int, user: str | None
    ) -> dict[str, Any]:
        return {
            "id": i,
            "created_at": created,
            "request.body": {"model": model},
            "response.body": {},
            "is_success": ok,
            "ai_org": "openrouter",
            "ai_model": model,
            "req_units": units,
            "res_units": 0 if not ok else 10,
            "total_units": units,
            "cost": 0.1,
            "cost_currency": "USD",
            "request_url": "https://openrouter.ai/api/v1",
            "request_method": "POST",
            "response_status_code": status,
            "response_time": 900,
            "cache_status": "DISABLED",
            "stream_mode": "FALSE",
            "retry_success_count": 0,
            "trace_id": "tr-" + i,
            "metadata": {"_user": user} if user else {},
        }

    lines = [
        rec("pk-v1", "2026-09-01T10:00:00.000Z", "z-ai/glm-5.3", 700000, 1, 200, "acct-a"),
        rec("pk-v2", "2026-09-01T10:00:10.000Z", "z-ai/glm-5.3", 0, 0, 502, "acct-b"),
        rec("pk-v3", "2026-09-01T10:00:20.000Z", "z-ai/glm-5.3-flash", 900000, 1, 200, "acct-a"),
        rec("pk-v4", "2026-09-10T00:00:00.000Z", "z-ai/glm-5.3", 900000, 1, 200, "acct-a"),
        rec("pk-v5", "2026-09-03T00:00:00.000Z", "z-ai/glm-5.3", 681281, 1, 200, None),
    ]
    _jsonl(HERE / "portkey-export-failures.jsonl", lines)


# --------------------------------------------------------------------------------------- Bedrock
def bedrock() -> None:
    """Model invocation logs: modelId as a model id, a foundation-model ARN, an inference-profile
    ARN; errorCode on a failed call (no token count)."""

    def inv(
        rid: str, ts: str, model: str, tokens: int | None, who: str, error: str | None = None
    ) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "schemaType": "ModelInvocationLog",
            "schemaVersion": "1.0",
            "timestamp": ts,
            "accountId": "111122223333",
            "identity": {"arn": who},
            "region": "us-east-1",
            "requestId": rid,
            "operation": "Converse",
            "modelId": model,
            "input": {
                "inputContentType": "application/json",
                "inputBodyJson": {"messages": [{"role": "user", "content": [{"text": "..."}]}]},
            },
        }
        if tokens is not None:
            rec["input"]["inputTokenCount"] = tokens
            rec["output"] = {"outputContentType": "application/json", "outputTokenCount": 10}
        if error is not None:
            rec["errorCode"] = error
        return rec

    role = "arn:aws:sts::111122223333:assumed-role/app-{}/session"
    lines = [
        inv("br-v1", "2026-09-01T10:00:00Z", "zai.glm-5.3-v1:0", 700000, role.format("a")),
        inv(
            "br-v2",
            "2026-09-01T10:01:00Z",
            "arn:aws:bedrock:us-east-1::foundation-model/zai.glm-5.3-v1:0",
            800000,
            role.format("b"),
        ),
        inv(
            "br-v3",
            "2026-09-01T10:02:00Z",
            "arn:aws:bedrock:us-east-1:111122223333:inference-profile/us.zai.glm-5.3-v1:0",
            681281,
            role.format("a"),
        ),
        inv(
            "br-v4",
            "2026-09-01T10:03:00Z",
            "us.zai.glm-5.3-v1:0",
            None,
            role.format("b"),
            error="ThrottlingException",
        ),
        inv("br-v5", "2026-09-01T10:04:00Z", "zai.glm-5.3-flash-v1:0", 900000, role.format("a")),
        inv("br-v6", "2026-08-26T23:59:59Z", "zai.glm-5.3-v1:0", 900000, role.format("a")),
    ]
    _jsonl(HERE / "bedrock-model-arns.jsonl", lines)
    # the same invocations delivered to CloudWatch Logs, saved from `aws logs filter-log-events`
    # (FilterLogEvents response: events [{logStreamName, timestamp, message, ingestionTime,
    # eventId}], searchedLogStreams): each message is the invocation log as a JSON string
    events = []
    for n, rec in enumerate([lines[0], lines[3], lines[4]]):
        rec = dict(rec, requestId=rec["requestId"].replace("br-v", "br-cw"))
        events.append(
            {
                "logStreamName": "aws/bedrock/modelinvocations",
                "timestamp": 1788256800000 + n,
                "message": json.dumps(rec),
                "ingestionTime": 1788256801000 + n,
                "eventId": f"3869{n:04d}",
            }
        )
    _pretty(
        HERE / "bedrock-cloudwatch-filter-log-events.json",
        {
            "events": events,
            "searchedLogStreams": [
                {"logStreamName": "aws/bedrock/modelinvocations", "searchedCompletely": True}
            ],
        },
    )


# ------------------------------------------------------------------------------------ Azure APIM
def azure_apim() -> None:
    """ApiManagementGatewayLlmLog and ApiManagementGatewayLogs rows saved as JSON arrays (a Log
    Analytics query result), every value as text: continuation rows without DeploymentName, a
    request whose gateway row is missing, a failed call (ResponseCode 429, no token counts)."""

    def llm(
        corr: str,
        ts: str,
        model: str,
        tokens: str,
        seq: str = "0",
        deployment: str = "prod-long-context",
    ) -> dict[str, str]:
        return {
            "TenantId": "5d3c",
            "TimeGenerated": ts,
            "CorrelationId": corr,
            "OperationName": "ChatCompletions_Create",
            "DeploymentName": deployment,
            "ModelName": model,
            "IsStreamCompletion": "False",
            "PromptTokens": tokens,
            "CompletionTokens": "" if not tokens else "10",
            "TotalTokens": tokens,
            "SequenceNumber": seq,
            "Type": "ApiManagementGatewayLlmLog",
        }

    def gateway(corr: str, ts: str, sub: str, code: str) -> dict[str, str]:
        return {
            "TimeGenerated": ts,
            "CorrelationId": corr,
            "ApimSubscriptionId": sub,
            "ApiId": "openai-api",
            "Method": "POST",
            "ResponseCode": code,
            "IsRequestSuccess": "True" if code == "200" else "False",
            "Type": "ApiManagementGatewayLogs",
        }

    llm_rows = [
        llm("c1", "2026-09-01T10:00:00.0000000Z", "glm-5.3", "700000"),
        llm("c1", "2026-09-01T10:00:00.0000000Z", "", "", seq="1", deployment=""),
        llm("c2", "2026-09-01T10:01:00.0000000Z", "glm-5.3", ""),
        llm("c3", "2026-09-01T10:02:00.0000000Z", "glm-5.3-flash", "900000"),
        llm("c4", "2026-09-01T10:03:00.0000000Z", "glm-5.3", "681281"),
        llm("c5", "2026-08-26T23:59:59.0000000Z", "glm-5.3", "900000"),
    ]
    gateway_rows = [
        gateway("c1", "2026-09-01T10:00:00.0000000Z", "sub-a", "200"),
        gateway("c2", "2026-09-01T10:01:00.0000000Z", "sub-b", "429"),
        gateway("c3", "2026-09-01T10:02:00.0000000Z", "sub-a", "200"),
        gateway("c5", "2026-08-26T23:59:59.0000000Z", "sub-a", "200"),
    ]
    _pretty(HERE / "azure-apim-llm-log.json", llm_rows)
    _pretty(HERE / "azure-apim-gateway-log.json", gateway_rows)


def main() -> None:
    """Write every variant fixture."""
    HERE.mkdir(exist_ok=True)
    for make in (
        langfuse_api_v2,
        langfuse_blob_v2,
        langfuse_blob_legacy,
        openrouter,
        cloudflare_logs_api,
        cloudflare_logpush,
        new_api,
        litellm,
        helicone,
        portkey,
        bedrock,
        azure_apim,
    ):
        make()


if __name__ == "__main__":
    main()
