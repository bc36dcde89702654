"""Rebuild samples/logs/* from an explicit case table: `python -m tests.presets.make_samples`.

Formatting only. The expected counts in tests/presets/expected/ were counted by hand from the
case table below (BASE plus the per-product additions), not from running this or the tool.
"""

import csv
import gzip
import io
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

OUT = Path(__file__).resolve().parents[2] / "samples" / "logs"
S = datetime(2026, 8, 27, 0, 0, 0, tzinfo=UTC)
E = datetime(2026, 9, 9, 23, 59, 59, tzinfo=UTC)
MISSING = object()

WHEN = {
    "mid": datetime(2026, 9, 1, 10, 0, 0, tzinfo=UTC),
    "mid2": datetime(2026, 9, 5, 14, 0, 0, tzinfo=UTC),
    "early": datetime(2026, 8, 28, 8, 30, 0, tzinfo=UTC),
    "start": S,
    "end": E,
    "before": S - timedelta(seconds=1),
    "after": E + timedelta(seconds=1),
}

# (n, model kind, when, prompt tokens, account, session)
BASE = [
    (1, "m", "mid", 681281, "acct-a", "sess-1"),
    (2, "m", "start", 681281, "acct-b", "sess-2"),
    (3, "m", "end", 900000, "acct-a", "sess-1"),
    (4, "m", "before", 700000, "acct-a", None),
    (5, "m", "after", 700000, "acct-b", None),
    (6, "m", "mid", 681280, "acct-a", None),
    (7, "m", "mid2", 1200, "acct-c", None),
    (8, "m", "mid", None, "acct-c", None),
    (9, "m", "mid", 0, "acct-b", None),
    (10, "m", "mid", 681281, None, "sess-3"),
    (11, "flash", "mid", 800000, "acct-a", None),
    (12, "52", "mid", 800000, "acct-a", None),
    (13, "5", "mid", 800000, "acct-b", None),
    (14, "other", "mid", 900000, "acct-c", None),
    (15, "M", "mid", 750000, "acct-c", "sess-4"),
    (16, "m", "early", MISSING, "acct-a", None),
    (17, "m", "early", 5000, "acct-b", None),
]


def at(when: str, n: int) -> datetime:
    base = WHEN[when]
    if when in ("mid", "mid2", "early"):
        base = base + timedelta(minutes=n)
    return base


def iso_z(d: datetime, ms: bool = True) -> str:
    if ms:
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"
    return d.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_lines(name: str, lines: list[str], gz: bool = False) -> None:
    data = ("\n".join(lines) + "\n").encode()
    if gz:
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as f:
            f.write(data)
        data = buf.getvalue()
    (OUT / name).write_bytes(data)


def dumps(obj: dict) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def truncate(line: str) -> str:
    return line[: len(line) * 2 // 3]


MSG = [{"role": "user", "content": "Summarise the attached contract bundle."}]


# --------------------------------------------------------------------------- cloudflare
def cloudflare() -> None:
    models = {
        "m": "@cf/zai-org/glm-5.3",
        "M": "@cf/zai-org/GLM-5.3",
        "flash": "@cf/zai-org/glm-5.3-flash",
        "52": "@cf/zai-org/glm-5.2",
        "5": "@cf/zai-org/glm-5",
        "other": "gpt-4o-mini",
    }
    lines = []
    for n, kind, when, tok, acct, sess in BASE:
        meta = {}
        if acct:
            meta["user_id"] = acct
        if sess:
            meta["session_id"] = sess
        rec = {
            "id": f"01K3CF{n:04d}R{n:02d}",
            "cached": False,
            "created_at": iso_z(at(when, n)),
            "duration": 41250 if tok and tok is not MISSING and tok > 600000 else 1830,
            "model": models[kind],
            "path": "workers-ai/@cf/zai-org/glm-5.3"
            if kind != "other"
            else "openai/chat/completions",
            "provider": "openai" if kind == "other" else "workers-ai",
            "success": n != 7,
            "status_code": 500 if n == 7 else 200,
            "step": 0,
            "request_type": "chat",
            "model_type": "text-generation",
            "tokens_out": 512,
            "cost": 0.0,
            "metadata": meta,
        }
        if tok is not MISSING:
            rec["tokens_in"] = tok
        lines.append(dumps(rec))
    # r16 above has no tokens_in at all (logged without usage)
    good = dumps(
        {
            "id": "01K3CF0099R99",
            "created_at": iso_z(WHEN["mid"]),
            "model": models["m"],
            "provider": "workers-ai",
            "tokens_in": 681281,
            "metadata": {"user_id": "acct-a"},
        }
    )
    lines.insert(5, truncate(good))  # a line cut off mid-write
    lines.insert(12, "\x00\x00\x17\x03 binary junk from a partial block")
    lines.append(
        dumps(
            {
                "success": False,
                "errors": [{"code": 10000, "message": "Authentication error"}],
                "result": None,
            }
        )
    )
    write_lines("cloudflare-ai-gateway.ndjson", lines)


# --------------------------------------------------------------------------- litellm
def litellm() -> None:
    models = {
        "m": "openrouter/z-ai/glm-5.3",
        "M": "together_ai/zai-org/GLM-5.3",
        "flash": "openrouter/z-ai/glm-5.3-flash",
        "52": "openrouter/z-ai/glm-5.2",
        "5": "zai/glm-5",
        "other": "gpt-4o",
    }
    lines = []
    for n, kind, when, tok, acct, sess in BASE:
        start = at(when, n)
        end = start + timedelta(seconds=30 if when == "before" else 45)
        rec = {
            "id": f"chatcmpl-lt-r{n:02d}",
            # as litellm 1.106.12 writes them (tests/scope/test_litellm_proxy.py): session_id ""
            # unless request_correlation_in_logs is on; trace_id the client's session, else a
            # new id per call; the session the client sent also in metadata.requester_metadata
            "trace_id": sess or f"trace-r{n:02d}",
            "session_id": "",
            "call_type": "acompletion",
            "stream": False,
            "response_cost": 0.41,
            "status": "failure" if n == 7 else "success",
            "total_tokens": (tok if isinstance(tok, int) else 0) + 300,
            "completion_tokens": 300,
            "startTime": start.timestamp(),
            "endTime": end.timestamp(),
            "completionStartTime": (start + timedelta(seconds=3)).timestamp(),
            "response_time": 45.0,
            "model": models[kind],
            # the public alias the client used; r12 (glm-5.2) is aliased "glm-5.3": must not match
            "model_group": "glm-5.3" if n == 12 else "long-context",
            "model_id": "f3c2a9d1e0b7",
            "custom_llm_provider": models[kind].split("/")[0],
            "api_base": "https://openrouter.ai/api/v1",
            "metadata": {
                "user_api_key_hash": (f"hash-{acct}" if acct else None),
                "user_api_key_alias": acct,
                "user_api_key_team_id": "team-research" if acct else None,
                "user_api_key_user_id": None,
                "user_api_key_end_user_id": None,
                "requester_ip_address": "10.0.4.17",
                "requester_metadata": {"session_id": sess} if sess else {},
            },
            "cache_hit": False,
            "messages": MSG,
            "response": {"choices": [{"message": {"role": "assistant", "content": "Summary ..."}}]},
        }
        if tok is not MISSING:
            rec["prompt_tokens"] = tok
        lines.append(dumps(rec))
    for k, when in ((1, "mid"), (2, "start")):
        lines.append(
            dumps(
                {
                    "id": f"mcp-lt-{k}",
                    "trace_id": "sess-1",
                    "call_type": "call_mcp_tool",
                    "status": "success",
                    "prompt_tokens": 0,
                    "completion_tokens": 0,
                    "total_tokens": 0,
                    "startTime": at(when, 30 + k).timestamp(),
                    "endTime": at(when, 30 + k).timestamp() + 2,
                    "model": "",
                    "mcp_namespaced_tool_name": "github/search_issues",
                    "metadata": {"user_api_key_hash": "hash-acct-a"},
                }
            )
        )
    good = lines[0]
    lines.insert(7, truncate(good))
    lines.append(
        dumps({"error": {"message": "litellm.RateLimitError: quota exceeded", "code": 429}})
    )
    write_lines("litellm.ndjson", lines)


# --------------------------------------------------------------------------- helicone
def helicone() -> None:
    models = {
        "m": "z-ai/glm-5.3",
        "M": "zai-org/GLM-5.3",
        "flash": "z-ai/glm-5.3-flash",
        "52": "z-ai/glm-5.2",
        "5": "z-ai/glm-5",
        "other": "gpt-4o",
    }
    base = list(BASE) + [(21, "m", "tz", 2000, "acct-a", None)]
    lines = []
    for n, kind, when, tok, acct, sess in base:
        if when == "tz":
            created = "2026-08-26T20:00:00.000-04:00"  # = 2026-08-27T00:00:00Z, in window
            start = S
        else:
            start = at(when, n)
            created = iso_z(start)
        props = {"Helicone-Session-Id": sess} if sess else {}
        rec = {
            "request_id": f"7c1e4b2a-0000-4000-8000-0000000000{n:02d}",
            "request_created_at": created,
            "request_path": "https://ai-gateway.helicone.ai/v1/chat/completions",
            "request_user_id": acct,
            "request_properties": props,
            "request_model": models[kind],
            "model_override": None,
            "response_id": f"9d0f-resp-{n:02d}",
            "response_created_at": iso_z(start + timedelta(seconds=25)),
            "response_status": 500 if n == 7 else 200,
            "response_model": models[kind],
            "helicone_user": "user_2a8f",
            "provider": "OPENAI" if kind == "other" else "OPENROUTER",
            "delay_ms": 25000,
            "time_to_first_token": 2100,
            "completion_tokens": 250,
            "country_code": "DE",
            "request_body": {"model": models[kind], "messages": MSG},
            "response_body": {"choices": [{"message": {"role": "assistant", "content": "..."}}]},
        }
        if tok is not MISSING:
            rec["prompt_tokens"] = tok
            rec["total_tokens"] = None if tok is None else tok + 250
        lines.append(dumps(rec))
    for k, typ in ((1, "tool"), (2, "data")):
        lines.append(
            dumps(
                {
                    "request_id": f"7c1e4b2a-0000-4000-8000-00000000t{k:03d}",
                    "request_created_at": iso_z(at("mid", 40 + k)),
                    "request_path": "custom-model-nopath",
                    "request_user_id": "acct-a",
                    "request_properties": {"Helicone-Session-Id": "sess-1"},
                    "request_model": None,
                    "response_created_at": iso_z(at("mid", 40 + k) + timedelta(seconds=1)),
                    "response_status": 200,
                    "provider": "CUSTOM",
                    "prompt_tokens": None,
                    "completion_tokens": None,
                    "request_body": {
                        "_type": typ,
                        "toolName": "vector_search",
                        "input": {"q": "contract"},
                    },
                    "response_body": {"_type": typ, "status": "success"},
                }
            )
        )
    lines.insert(4, truncate(lines[0]))
    lines.insert(15, "<html><body>502 Bad Gateway</body></html>")
    write_lines("helicone.jsonl", lines)


# --------------------------------------------------------------------------- langfuse
def langfuse() -> None:
    models = {
        "m": "glm-5.3",
        "M": "zai-org/GLM-5.3",
        "flash": "glm-5.3-flash",
        "52": "glm-5.2",
        "5": "glm-5",
        "other": "gpt-4o",
    }
    base = list(BASE) + [(21, "m", "tz", 2000, "acct-a", None)]
    out = []
    for n, kind, when, tok, acct, sess in base:
        if when == "tz":
            started = "2026-08-27T02:00:00.000+02:00"  # = 2026-08-27T00:00:00Z
            start = S
        else:
            start = at(when, n)
            started = iso_z(start)
        usage = {"output": 180}
        if tok is not MISSING:
            usage["input"] = tok
            usage["total"] = None if tok is None else tok + 180
        rec = {
            "id": f"obs-lf-r{n:02d}",
            "traceId": f"trace-{(sess or f'r{n:02d}')}",
            "projectId": "cm0proj01",
            "type": "GENERATION",
            "name": "summarise",
            "parentObservationId": f"span-root-{n:02d}",
            "startTime": started,
            "endTime": iso_z(start + timedelta(seconds=35)),
            "completionStartTime": iso_z(start + timedelta(seconds=4)),
            "level": "ERROR" if n == 7 else "DEFAULT",
            "statusMessage": "upstream 500" if n == 7 else None,
            "environment": "production",
            "userId": acct,
            "sessionId": sess,
            "model": models[kind],
            "modelParameters": {"temperature": 0.2},
            "usageDetails": usage,
            "costDetails": {"total": 0.52},
            "input": MSG,
            "output": {"role": "assistant", "content": "..."},
        }
        out.append(rec)
    # non-model observations that look like big GLM calls: never requests
    out.insert(
        3,
        {
            "id": "span-root-01",
            "traceId": "trace-sess-1",
            "projectId": "cm0proj01",
            "type": "SPAN",
            "name": "contract-pipeline",
            "startTime": iso_z(at("mid", 0)),
            "endTime": iso_z(at("mid", 5)),
            "level": "DEFAULT",
            "userId": "acct-a",
            "sessionId": "sess-1",
            "model": "glm-5.3",
            "usageDetails": {"input": 900000},
            "input": MSG,
        },
    )
    out.insert(
        9,
        {
            "id": "evt-01",
            "traceId": "trace-sess-2",
            "projectId": "cm0proj01",
            "type": "EVENT",
            "name": "retrieved-documents",
            "startTime": iso_z(S),
            "level": "DEFAULT",
            "userId": "acct-b",
            "sessionId": "sess-2",
            "model": None,
            "usageDetails": {},
        },
    )
    out.append(
        {
            "id": "agent-01",
            "traceId": "trace-sess-4",
            "projectId": "cm0proj01",
            "type": "AGENT",
            "name": "reviewer-agent",
            "startTime": iso_z(at("mid", 50)),
            "endTime": iso_z(at("mid", 55)),
            "level": "DEFAULT",
            "userId": "acct-c",
            "sessionId": "sess-4",
            "model": "zai-org/GLM-5.3",
            "usageDetails": {"input": 750000},
        }
    )
    (OUT / "langfuse.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n")


# --------------------------------------------------------------------------- openrouter
def openrouter() -> None:
    models = {
        "m": "z-ai/glm-5.3",
        "M": "z-ai/GLM-5.3",
        "flash": "z-ai/glm-5.3-flash",
        "52": "z-ai/glm-5.2",
        "5": "z-ai/glm-5",
        "other": "openai/gpt-4o",
    }

    def off(d: datetime) -> str:
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond:06d}+00:00"

    # (n, kind, when, native, normalised, account)
    rows = []
    for n, kind, when, tok, acct, _sess in BASE:
        normal = tok if tok is MISSING or tok is None or tok == 0 else round(tok * 0.93)
        rows.append((n, kind, when, tok, normal, acct))
    rows += [
        (18, "m", "mid", 681281, 600000, "acct-d"),  # native over, normalised under: over
        (19, "m", "mid", 681280, 700000, "acct-d"),  # native at threshold, normalised over: under
        (20, "m", "mid", None, 681281, "acct-d"),  # no native count: the normalised one is used
        (21, "m", "tz", 3000, 2800, "acct-a"),
    ]
    lines = []
    for n, kind, when, native, normal, acct in rows:
        created = "2026-08-27T02:00:00.000000+02:00" if when == "tz" else off(at(when, n))
        rec = {
            "id": f"gen-or-r{n:02d}",
            "upstream_id": f"chatcmpl-{n:02d}",
            "total_cost": 0.31,
            "cache_discount": None,
            "created_at": created,
            "model": models[kind],
            "app_id": 167635,
            "streamed": True,
            "cancelled": False,
            "provider_name": "Z.AI",
            "latency": 31000,
            "generation_time": 29000,
            "finish_reason": "error" if n == 7 else "stop",
            "native_finish_reason": "stop",
            "tokens_completion": 400,
            "native_tokens_completion": 410,
            "origin": "https://contracts.example.com/",
            "usage": 0.31,
            "is_byok": False,
            "external_user": acct,
        }
        if native is not MISSING:
            rec["native_tokens_prompt"] = native
        if normal is not MISSING:
            rec["tokens_prompt"] = normal
        lines.append(dumps(rec))
    lines.insert(6, truncate(lines[0]))
    lines.append(dumps({"error": {"message": "Generation gen-or-x not found", "code": 404}}))
    write_lines("openrouter.jsonl", lines)


# --------------------------------------------------------------------------- portkey
def portkey() -> None:
    models = {
        "m": "glm-5.3",
        "M": "zai-org/GLM-5.3",
        "flash": "glm-5.3-flash",
        "52": "glm-5.2",
        "5": "glm-5",
        "other": "gpt-4o",
    }
    lines = []
    for n, kind, when, tok, acct, sess in BASE:
        meta = {"environment": "prod"}
        if acct:
            meta["_user"] = acct
        rec = {
            "id": f"pk-log-r{n:02d}",
            "trace_id": sess or f"pk-trace-r{n:02d}",
            "created_at": at(when, n).strftime("%Y-%m-%d %H:%M:%S"),  # no zone: UTC
            "ai_org": "openai" if kind == "other" else "zhipu",
            "ai_model": models[kind],
            # request_url: "Final provider API URL" (the export's columns, portkey preset)
            "request_url": "https://api.openai.com/v1/chat/completions"
            if kind == "other"
            else "https://open.bigmodel.cn/api/paas/v4/chat/completions",
            "res_units": 220,
            "cost": 41.0,
            "cost_currency": "USD",
            "is_success": 0 if n == 7 else 1,
            "response_status_code": 500 if n == 7 else 200,
            "response_time": 28000,
            "cache_status": "DISABLED",
            "stream_mode": "FALSE",
            "metadata": meta,
            "request": {"body": {"model": models[kind], "messages": MSG}},
            "response": {"body": {"choices": [{"message": {"content": "..."}}]}},
        }
        if tok is not MISSING:
            rec["req_units"] = tok
            rec["total_units"] = None if tok is None else tok + 220
        lines.append(dumps(rec))
    lines.insert(3, truncate(lines[1]))
    lines.insert(11, "--- export part 2 ---")
    write_lines("portkey.jsonl", lines)


# --------------------------------------------------------------------------- bedrock
def bedrock() -> None:
    account = "111122223333"
    models = {
        "m": "zai.glm-5.3",
        "M": "global.zai.GLM-5.3",
        "flash": "us.zai.glm-5.3-flash",
        "52": "zai.glm-5.2",
        "5": "zai.glm-5",
        "other": "anthropic.claude-sonnet-4-20250514-v1:0",
    }
    special = {
        1: "us.zai.glm-5.3",
        2: f"arn:aws:bedrock:us-east-1:{account}:inference-profile/us.zai.glm-5.3",
        3: "arn:aws:bedrock:us-east-1::foundation-model/zai.glm-5.3",
    }
    lines = []
    for n, kind, when, tok, acct, _sess in BASE:
        inp = {
            "inputContentType": "application/json",
            "inputBodyJson": {"messages": [{"role": "user", "content": [{"text": "Summarise."}]}]},
        }
        if tok is not MISSING:
            inp["inputTokenCount"] = tok
        rec = {
            "schemaType": "ModelInvocationLog",
            "schemaVersion": "1.0",
            "timestamp": iso_z(at(when, n), ms=False),
            "accountId": account,
            "region": "us-east-1",
            "requestId": f"b7e1c0de-0000-4000-9000-0000000000{n:02d}",
            "operation": "Converse",
            "modelId": special.get(n, models[kind]),
            "input": inp,
            "output": {
                "outputContentType": "application/json",
                "outputBodyJson": {
                    "output": {"message": {"role": "assistant", "content": [{"text": "..."}]}},
                    "stopReason": "end_turn",
                },
                "outputTokenCount": 300,
            },
        }
        if acct:
            rec["identity"] = {"arn": f"arn:aws:sts::{account}:assumed-role/app-{acct}/worker"}
        lines.append(dumps(rec))
    lines.insert(8, truncate(lines[0]))
    lines.insert(14, "\x1f\x8b\x08 corrupt gzip member re-concatenated")
    write_lines("bedrock.jsonl.gz", lines, gz=True)


# --------------------------------------------------------------------------- azure
def azure() -> None:
    models = {
        "m": "glm-5.3",
        "M": "GLM-5.3",
        "flash": "glm-5.3-flash",
        "52": "glm-5.2",
        "5": "glm-5",
        "other": "gpt-4o",
    }
    subs = {"acct-a": "sub-contracts-a", "acct-b": "sub-legal-b", "acct-c": "sub-search-c"}

    def tg(d: datetime) -> str:
        return d.strftime("%Y-%m-%dT%H:%M:%S.0000000Z")

    cols = [
        "TenantId",
        "TimeGenerated",
        "CorrelationId",
        "RequestId",
        "OperationName",
        "ApiVersion",
        "DeploymentName",
        "ModelName",
        "IsStreamCompletion",
        "PromptTokens",
        "CompletionTokens",
        "TotalTokens",
        "SequenceNumber",
        "RequestMessages",
        "ResponseMessages",
        "Region",
        "Type",
    ]
    rows = []
    gateway = []
    for n, kind, when, tok, acct, _sess in BASE:
        corr = f"4f0c2b7e-aaaa-4bbb-8ccc-0000000000{n:02d}"
        ptok = "" if tok is MISSING or tok is None else str(tok)
        total = "" if ptok == "" else str(int(ptok) + 200)
        deployment = "glm-5.3" if n == 12 else ("prod-long-context" if kind != "other" else "gpt4o")
        rows.append(
            [
                "5d3c",
                tg(at(when, n)),
                corr,
                f"chatcmpl-az{n:02d}",
                "ChatCompletions_Create",
                "2025-01-01-preview",
                deployment,
                models[kind],
                "True" if n in (1, 3) else "False",
                ptok,
                "200",
                total,
                "0",
                json.dumps(MSG),
                json.dumps([{"role": "assistant", "content": "..."}]),
                "Sweden Central",
                "ApiManagementGatewayLlmLog",
            ]
        )
        # continuation rows of a split prompt/completion: no deployment, no tokens
        continued = json.dumps([{"role": "user", "content": "...continued..."}])
        rows.extend(
            [
                "5d3c",
                tg(at(when, n)),
                corr,
                f"chatcmpl-az{n:02d}",
                "ChatCompletions_Create",
                "2025-01-01-preview",
                "",
                "",
                "True",
                "",
                "",
                "",
                seq,
                continued,
                "",
                "Sweden Central",
                "ApiManagementGatewayLlmLog",
            ]
            for seq in {1: ("1", "2"), 3: ("1",)}.get(n, ())
        )
        if acct:  # r10 has no gateway row: unattributed
            gateway.append(
                [
                    tg(at(when, n)),
                    corr,
                    subs[acct],
                    "openai-api",
                    "POST",
                    "500" if n == 7 else "200",
                    "True" if n != 7 else "False",
                    "10.1.2.3",
                    "ApiManagementGatewayLogs",
                ]
            )
    # a gateway row for a non-LLM API call (no LLM log row shares its CorrelationId)
    gateway.append(
        [
            tg(at("mid", 59)),
            "4f0c2b7e-aaaa-4bbb-8ccc-00000000ff01",
            "sub-legal-b",
            "echo-api",
            "GET",
            "200",
            "True",
            "10.1.2.9",
            "ApiManagementGatewayLogs",
        ]
    )
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for i, r in enumerate(rows):
        w.writerow(r)
        if i == 6:  # a row cut short (export interrupted mid-line, then resumed)
            buf.write(
                "5d3c,2026-09-01T10:01:00.0000000Z,4f0c2b7e-aaaa-4bbb-8ccc-000000000099,"
                "chatcmpl-az99,ChatCompletions_Create\n"
            )
        if i == 13:  # a row with two extra fields
            w.writerow(
                r[:9]
                + [
                    "681281",
                    "200",
                    "681481",
                    "0",
                    "",
                    "",
                    "Sweden Central",
                    "ApiManagementGatewayLlmLog",
                    "extra",
                    "extra",
                ]
            )
    (OUT / "azure-apim.csv").write_text(buf.getvalue())
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(
        [
            "TimeGenerated",
            "CorrelationId",
            "ApimSubscriptionId",
            "ApiId",
            "Method",
            "ResponseCode",
            "IsRequestSuccess",
            "CallerIpAddress",
            "Type",
        ]
    )
    w.writerows(gateway)
    (OUT / "azure-apim-gateway.csv").write_text(buf.getvalue())


# --------------------------------------------------------------------------- new-api
def newapi() -> None:
    models = {
        "m": "glm-5.3",
        "M": "zai-org/GLM-5.3",
        "flash": "glm-5.3-flash",
        "52": "glm-5.2",
        "5": "glm-5",
        "other": "gpt-4o",
    }
    users = {"acct-a": 11, "acct-b": 12, "acct-c": 13}
    cols = [
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
        "request_id",
        "other",
    ]
    rows = []
    for n, kind, when, tok, acct, _sess in BASE:
        ptok = "" if tok is MISSING else ("0" if tok is None else str(tok))
        if tok is None:
            ptok = ""  # NULL exported as an empty cell
        rows.append(
            [
                str(1000 + n),
                str(users[acct]) if acct else "",
                str(int(at(when, n).timestamp())),
                "2",
                "model ratio 1.00, group ratio 1.00",
                acct or "",
                "contracts-key",
                models[kind],
                "350000",
                ptok,
                "300",
                "38",
                "false",
                "3",
                "41",
                "default",
                "10.0.0.8",
                f"202609011000{n:02d}abcd",
                '{"model_ratio":1}',
            ]
        )
    extra = [
        # top-up, manage and refund: not requests; error (failed relay, no usage): a request
        [
            str(1101),
            "11",
            str(int(at("mid", 40).timestamp())),
            "1",
            "top-up 50.00 USD",
            "acct-a",
            "",
            "",
            "25000000",
            "0",
            "0",
            "0",
            "false",
            "0",
            "0",
            "default",
            "",
            "",
            "",
        ],
        [
            str(1102),
            "1",
            str(int(at("mid", 41).timestamp())),
            "3",
            "admin set quota",
            "root",
            "",
            "",
            "0",
            "0",
            "0",
            "0",
            "false",
            "0",
            "0",
            "default",
            "",
            "",
            "",
        ],
        [
            str(1103),
            "12",
            str(int(at("mid", 42).timestamp())),
            "5",
            "upstream error: status 500",
            "acct-b",
            "contracts-key",
            "glm-5.3",
            "0",
            "0",  # RecordErrorLog (model/log.go) writes PromptTokens: 0
            "0",
            "2",
            "false",
            "3",
            "41",
            "default",
            "10.0.0.8",
            "20260901104200abcd",
            "{}",
        ],
        [
            str(1104),
            "12",
            str(int(at("mid", 43).timestamp())),
            "6",
            "refund of failed task",
            "acct-b",
            "contracts-key",
            "glm-5.3",
            "350000",
            "681281",
            "0",
            "0",
            "false",
            "3",
            "41",
            "default",
            "",
            "20260901104300abcd",
            "{}",
        ],
    ]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for i, r in enumerate(rows):
        w.writerow(r)
        if i == 4:
            w.writerow(extra[0])
        if i == 8:
            buf.write("1099,11,1788256800,2,truncated row\n")  # too few fields
        if i == 10:
            w.writerow(extra[1])
            w.writerow(extra[2])
        if i == 14:
            w.writerow(
                r[:5]
                + [
                    "acct-a",
                    "contracts-key",
                    "glm-5.3",
                    "1",
                    "681281",
                    "1",
                    "1",
                    "false",
                    "3",
                    "41",
                    "default",
                    "10.0.0.8",
                    "x",
                    "{}",
                    "surplus",
                ]
            )
    w.writerow(extra[3])
    (OUT / "new-api.csv").write_text(buf.getvalue())


# --------------------------------------------------------------------------- litellm spend logs
def litellm_spendlogs() -> None:
    models = {
        "m": "openrouter/z-ai/glm-5.3",
        "M": "together_ai/zai-org/GLM-5.3",
        "flash": "openrouter/z-ai/glm-5.3-flash",
        "52": "openrouter/z-ai/glm-5.2",
        "5": "zai/glm-5",
        "other": "gpt-4o",
    }
    cols = [
        "request_id",
        "call_type",
        "api_key",
        "spend",
        "total_tokens",
        "prompt_tokens",
        "completion_tokens",
        "startTime",
        "endTime",
        "request_duration_ms",
        "completionStartTime",
        "model",
        "model_id",
        "model_group",
        "custom_llm_provider",
        "api_base",
        "user",
        "metadata",
        "cache_hit",
        "cache_key",
        "request_tags",
        "team_id",
        "organization_id",
        "end_user",
        "requester_ip_address",
        "messages",
        "response",
        "session_id",
        "status",
        "mcp_namespaced_tool_name",
        "agent_id",
        "proxy_server_request",
    ]

    def pg(d: datetime) -> str:  # timestamp(3) without time zone, as psql prints it
        return d.strftime("%Y-%m-%d %H:%M:%S")

    rows = []
    for n, kind, when, tok, acct, sess in BASE:
        start = at(when, n)
        end = start + timedelta(seconds=30 if when == "before" else 45)
        ptok = tok if isinstance(tok, int) and tok is not MISSING else 0  # NOT NULL DEFAULT 0
        key = f"hash-{acct}" if acct else ""
        meta = {
            "user_api_key": key,
            "user_api_key_alias": acct,
            "user_api_key_team_id": "team-research" if acct else None,
            "spend_logs_metadata": None,
        }
        rows.append(
            [
                f"chatcmpl-sl-r{n:02d}",
                "acompletion",
                key,
                "0.41",
                str(ptok + 300),
                str(ptok),
                "300",
                pg(start),
                pg(end),
                "45000",
                pg(start + timedelta(seconds=3)),
                models[kind],
                "f3c2a9d1e0b7",
                "glm-5.3" if n == 12 else "long-context",
                models[kind].split("/")[0],
                "https://openrouter.ai/api/v1",
                "",
                json.dumps(meta),
                "False",
                "",
                "[]",
                "team-research" if acct else "",
                "",
                "",
                "10.0.4.17",
                "{}",
                "{}",
                sess or "",
                "failure" if n == 7 else "success",
                "",
                "",
                "{}",
            ]
        )
    rows.insert(
        9,
        [
            "mcp-sl-1",
            "call_mcp_tool",
            "hash-acct-a",
            "0.0",
            "0",
            "0",
            "0",
            pg(at("mid", 31)),
            pg(at("mid", 31) + timedelta(seconds=2)),
            "2000",
            "",
            "",
            "",
            "",
            "",
            "",
            "",
            "{}",
            "False",
            "",
            "[]",
            "team-research",
            "",
            "",
            "10.0.4.17",
            "{}",
            "{}",
            "sess-1",
            "success",
            "github/search_issues",
            "",
            "{}",
        ],
    )
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    w.writerows(rows)
    buf.write(
        "chatcmpl-sl-r99,acompletion,hash-acct-a,0.41,681581,681281,300,2026-09-01 10:59:00\n"
    )
    (OUT / "litellm-spendlogs.csv").write_text(buf.getvalue())


def main() -> None:
    """Write every sample."""
    OUT.mkdir(parents=True, exist_ok=True)
    for write in (
        cloudflare,
        litellm,
        litellm_spendlogs,
        helicone,
        langfuse,
        openrouter,
        portkey,
        bedrock,
        azure,
        newapi,
    ):
        write()


if __name__ == "__main__":
    main()
