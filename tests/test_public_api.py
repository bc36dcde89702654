"""The public Python API: each function imported from `assess` in a fresh interpreter and run on
the shipped samples; `import assess` stays cheap; errors are AssessError kinds, never exits."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import REPO


def run_python(code: str, env: dict[str, str] | None = None) -> dict[str, object]:
    """Run ``code`` in a fresh interpreter from the repository root; return the JSON it prints."""
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])  # type: ignore[no-any-return]


def test_import_assess_loads_no_heavy_dependency() -> None:
    out = run_python(
        """
        import json, sys
        import assess
        heavy = ("pandas", "pyarrow", "polars", "typer", "pydantic", "rich", "httpx", "openai")
        print(json.dumps({"loaded": [m for m in heavy if m in sys.modules],
                          "assess": sorted(m for m in sys.modules if m.startswith("assess"))}))
        """
    )
    assert out["loaded"] == []
    assert out["assess"] == ["assess", "assess.kernel", "assess.kernel.errors"]


def test_scope_logs_returns_the_scope_model() -> None:
    out = run_python(
        """
        import json
        from assess import scope_logs
        from assess.scope.models import ScopeResult
        r = scope_logs(["samples/logs/cloudflare-ai-gateway.ndjson"], incident="glm-5.3-kv-leak")
        c = r.counts
        print(json.dumps({"model": isinstance(r, ScopeResult), "exit": r.exit_code,
                          "preset": r.preset, "read": c.records_read,
                          "parts": c.model_matched + (c.records_read - c.model_matched),
                          "affected": r.affected.requests, "doc": r.model_dump(mode="json")}))
        """
    )
    assert out["model"] is True
    assert out["preset"] == "cloudflare-ai-gateway"
    assert out["exit"] == 1 and out["affected"] == 5
    doc = out["doc"]
    assert isinstance(doc, dict) and doc["kind"] == "assess.scope"
    assert doc["counts"]["records_read"] == 20


def test_scope_logs_matches_the_cli_json(run_cli: object) -> None:
    """The function's model is the document `assess scope --json` writes, key for key."""
    log = str(REPO / "samples/logs/cloudflare-ai-gateway.ndjson")
    out = run_python(
        f"""
        import json
        from assess import scope_logs
        r = scope_logs([{log!r}])
        print(json.dumps(r.model_dump(mode="json")))
        """
    )
    result = run_cli("scope", log, "--json", "-")  # type: ignore[operator]
    assert result.exit_code == 1
    assert out == json.loads(result.stdout)


def test_score_answers_returns_the_score_model() -> None:
    out = run_python(
        """
        import json
        from assess import score_answers
        from assess.vendor.scoring.models import ScoreResult
        r = score_answers("samples/vendors/incident-like.yaml",
                          probe="samples/probes/leaky-lab.json")
        print(json.dumps({"model": isinstance(r, ScoreResult), "tier": r.tier, "score": r.score,
                          "kind": r.model_dump(mode="json")["kind"],
                          "ids": [f.id for f in r.findings]}))
        """
    )
    assert out["model"] is True
    assert out["kind"] == "assess.score"
    assert out["tier"] == "critical" and out["score"] == 100
    assert out["ids"]


def test_check_deployment_returns_the_deploy_model() -> None:
    out = run_python(
        """
        import json
        from assess import check_deployment
        from assess.deploy.models import DeployCheckResult
        r = check_deployment(["samples/serverlogs/sglang-prefill.log",
                              "samples/serverlogs/sglang-decode.log"],
                             advertised_context=1048576)
        print(json.dumps({"model": isinstance(r, DeployCheckResult), "failed": r.failed,
                          "verdict": r.verdict.value, "nodes": [n.name for n in r.nodes],
                          "kind": r.model_dump(mode="json")["kind"]}))
        """
    )
    assert out["model"] is True and out["kind"] == "assess.deploy-check"
    assert out["failed"] is True and out["verdict"] == "flag"
    assert len(out["nodes"]) == 2  # type: ignore[arg-type]


def test_build_report_returns_the_report_model() -> None:
    out = run_python(
        """
        import json
        from assess import build_report
        from assess.report.models import Report
        r = build_report("samples/vendors/incident-like.yaml",
                         logs=["samples/logs/cloudflare-ai-gateway.ndjson"],
                         incident="glm-5.3-kv-leak", probes=["samples/probes/leaky-lab.json"],
                         deploy_logs=["samples/serverlogs/sglang-prefill.log"],
                         generated_at="2026-09-01T00:00:00Z")
        print(json.dumps({"model": isinstance(r, Report), "tier": r.tier,
                          "when": r.model_dump(mode="json")["generated_at"],
                          "not_assessed": [i.section for i in r.not_assessed]}))
        """
    )
    assert out["model"] is True
    assert out["tier"] == "critical"
    assert out["when"] == "2026-09-01T00:00:00Z"
    assert out["not_assessed"] == []


def test_build_portfolio_returns_the_portfolio_model() -> None:
    out = run_python(
        """
        import json
        from assess import build_portfolio
        from assess.portfolio.models import Portfolio
        p = build_portfolio(["samples/vendors/well-run.yaml", "samples/vendors/incident-like.yaml",
                             "no-such.yaml"], generated_at="2026-09-01T00:00:00Z")
        print(json.dumps({"model": isinstance(p, Portfolio), "kind": p.kind,
                          "order": [v.vendor for v in p.vendors],
                          "skipped": [s.file for s in p.skipped]}))
        """
    )
    assert out["model"] is True and out["kind"] == "assess.portfolio"
    assert out["order"] == ["Example Edge AI Inc.", "Careful Compute GmbH"]
    assert out["skipped"] == ["no-such.yaml"]


def test_run_probe_against_the_lab_finds_the_leak() -> None:
    out = run_python(
        """
        import json
        from assess import run_probe
        from assess.lab.engine import LabConfig
        from assess.lab.server import run_lab_server
        from assess.probe.models import ProbeResult
        lab = LabConfig(page_tokens=16, pool_tokens=256, context_tokens=512)
        with run_lab_server(lab) as url:
            r = run_probe(url, "lab-glm-5.3", long_prompt_tokens=400, rounds=2)
        print(json.dumps({"model": isinstance(r, ProbeResult), "leak": r.leak_found,
                          "complete": r.complete, "kind": r.model_dump(mode="json")["kind"],
                          "key_shown": "probe-key-123" in r.model_dump_json()}))
        """,
        env={**_env(), "ASSESS_API_KEY": "probe-key-123"},
    )
    assert out == {
        "model": True,
        "leak": True,
        "complete": True,
        "kind": "assess.probe",
        "key_shown": False,
    }


def _env() -> dict[str, str]:
    import os

    return {k: v for k, v in os.environ.items() if k != "ASSESS_API_KEY"}


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("from assess import scope_logs; scope_logs(['no-such.ndjson'])", "InputError"),
        (
            "from assess import scope_logs; "
            "scope_logs(['samples/logs/cloudflare-ai-gateway.ndjson'],"
            " since='yesterday')",
            "UsageError",
        ),
        ("from assess import check_deployment; check_deployment([])", "UsageError"),
        ("from assess import score_answers; score_answers('no-such.yaml')", "InputError"),
        ("from assess import build_portfolio; build_portfolio(['no-such.yaml'])", "InputError"),
        ("from assess import run_probe; run_probe('http://127.0.0.1:9/v1', 'm')", "UsageError"),
        (
            "from assess import build_report; build_report('samples/vendors/incident-like.yaml',"
            " incident='glm-5.3-kv-leak')",
            "UsageError",
        ),
    ],
)
def test_errors_are_assess_error_kinds_not_exits(code: str, kind: str) -> None:
    out = run_python(
        f"""
        import json
        import assess
        try:
            {code}
        except assess.AssessError as exc:
            print(json.dumps({{"kind": type(exc).__name__, "message": exc.message,
                              "is_kind": isinstance(exc, getattr(assess, {kind!r}))}}))
        """,
        env=_env(),
    )
    assert out["kind"] == kind and out["is_kind"] is True
    assert out["message"]


def test_an_unknown_name_is_an_attribute_error() -> None:
    import assess

    with pytest.raises(AttributeError, match="no_such_function"):
        assess.no_such_function  # noqa: B018
