"""The canary protocol: plant markers as account A, probe as account B, scan everything.

Per round: A plants one marker in natural text; then B sends ``probes_per_round`` unrelated
prompts (long ones in boundary mode), ``concurrency`` at a time; then A sends one unrelated
follow-up (a marker must not reappear in the planting account's own later answers either). Every
response is scanned for every marker planted by *another* request so far. The run never prints; it
returns a :class:`RunOutcome` whose result is complete or marked incomplete.
"""

from __future__ import annotations

import threading
import uuid
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from assess.kernel.errors import EndpointError
from assess.probe.config import CostEstimate as CostEstimate
from assess.probe.config import ProbeAccount as ProbeAccount
from assess.probe.config import ProbeConfig as ProbeConfig
from assess.probe.config import StreamMode as StreamMode
from assess.probe.config import estimate_cost as estimate_cost
from assess.probe.config import estimate_tokens as estimate_tokens
from assess.probe.config import unrelated_prompt as unrelated_prompt
from assess.probe.markers import (
    Marker,
    echo_code,
    echo_prompt,
    new_marker,
    plant_prompt,
    scan_fields,
)
from assess.probe.models import (
    Account,
    AccountInfo,
    EchoControl,
    ErrorRecord,
    Hit,
    RequestRecord,
    Role,
)
from assess.probe.transport.httpx_transport import make_httpx_transport
from assess.probe.transport.interface import (
    ChatRequest,
    ChatResponse,
    Transport,
    TransportError,
    TransportFactory,
    carries_text,
    redact_secret,
)
from assess.probe.transport.openai_sdk import make_openai_transport
from assess.probe.transport.secrets import url_secrets

TRANSPORTS: dict[str, TransportFactory] = {
    "httpx": make_httpx_transport,
    "openai": make_openai_transport,
}


@dataclass
class RunState:
    """What the run has gathered so far (complete or not)."""

    markers: list[tuple[Marker, str, Account]] = field(default_factory=list)
    requests: list[RequestRecord] = field(default_factory=list)
    hits: list[Hit] = field(default_factory=list)
    errors: list[ErrorRecord] = field(default_factory=list)
    scanned: dict[str, bool] = field(default_factory=dict)  # request id -> had a hit
    unusable: set[str] = field(default_factory=set)  # probe answers with no text: not probes
    control: EchoControl | None = None  # the echo control, once sent
    fatal: EndpointError | None = None
    interrupted: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


@dataclass(frozen=True)
class _Job:
    id: str
    round: int
    account: ProbeAccount
    role: Role
    prompt: str
    stream: bool
    plants: Marker | None = None


class ProbeRunner:
    """Runs the protocol against one endpoint with one or two accounts."""

    def __init__(
        self,
        config: ProbeConfig,
        account_a: ProbeAccount,
        account_b: ProbeAccount,
        factory: TransportFactory | None = None,
    ) -> None:
        self.config = config
        self.accounts = (account_a, account_b)
        make = factory or TRANSPORTS[config.transport]
        self.transports: dict[Account, Transport] = {
            acc.label: make(config.base_url, acc.api_key, config.timeout_s, config.max_retries)
            for acc in self.accounts
        }
        self.state = RunState()
        self._counter = 0
        self._stop: threading.Event | None = None

    def account_info(self) -> list[AccountInfo]:
        """Return the accounts as recorded (labels and env var names only)."""
        return [AccountInfo(label=a.label, key_env=a.key_env, note=a.note) for a in self.accounts]

    def redact(self, text: str) -> str:
        """Return ``text`` with every API key of this run replaced by ``[redacted]`` (in every
        encoding an endpoint may echo it in), and the base URL's credentials (``user:password@``,
        query-string values) removed."""
        text = text.replace(self.config.base_url, self.config.endpoint)
        user_info = self.config.base_url.partition("://")[2].partition("/")[0].rpartition("@")[0]
        for secret in (user_info, *url_secrets(self.config.base_url)):
            text = redact_secret(text, secret)
        for acc in self.accounts:
            text = redact_secret(text, acc.api_key)
        return text

    def run(self, stop: threading.Event | None = None) -> RunState:
        """Run every round (or until a fatal error, too many errors or ``stop``).

        Returns the state, with ``fatal`` set when the endpoint could not be used, and
        ``interrupted`` when Ctrl-C or ``stop`` ended it early. Never raises TransportError.
        """
        cfg = self.config
        self._stop = stop
        try:
            if self._preflight():
                with ThreadPoolExecutor(max_workers=cfg.concurrency) as pool:
                    for rnd in range(1, cfg.rounds + 1):
                        if not self._round(rnd, pool):
                            break
                    else:
                        self._control()
        except KeyboardInterrupt:
            self.state.interrupted = True
            self._error(None, "interrupted", "interrupted by the user (Ctrl-C)", fatal=False)
        finally:
            for transport in self.transports.values():
                transport.close()
        return self.state

    def should_stop(self) -> bool:
        """Return True once the run must end early."""
        s = self.state
        if self._stop is not None and self._stop.is_set():
            with s.lock:
                first, s.interrupted = not s.interrupted, True
            if first:
                self._error(None, "interrupted", "stopped on request", fatal=False)
        return bool(s.fatal or s.interrupted or len(s.errors) >= self.config.max_errors)

    def _preflight(self) -> bool:
        for acc in self.accounts:
            try:
                models = self.transports[acc.label].list_models()
            except TransportError as exc:
                exc.fatal = True  # no model list, no run: never a "complete" run with 0 probes
                self._fail(None, acc, exc)
                return False
            if models and self.config.model not in models:
                shown = ", ".join(models[:10])
                self.state.fatal = EndpointError(
                    f"--model: {self.config.endpoint} does not offer '{self.config.model}'",
                    f"The endpoint lists: {shown}. Pass one of them with --model.",
                )
                self._error(None, "not_found", self.state.fatal.message, fatal=True)
                return False
        return True

    def _next_id(self) -> str:
        self._counter += 1
        return f"r{self._counter:04d}"

    def _stream_for(self, index: int) -> bool:
        """Return whether request ``index`` streams: all, none, or odd ones (``both``)."""
        mode = self.config.stream
        return mode == "on" or (mode == "both" and index % 2 == 1)

    def _round(self, rnd: int, pool: ThreadPoolExecutor) -> bool:
        """Run one round; return False when the run must stop."""
        a, b = self.accounts
        marker = new_marker(rnd)
        if self.should_stop():
            return False
        plant = plant_prompt(marker, rnd)
        self._do(_Job(self._next_id(), rnd, a, "plant", plant, self._stream_for(0), marker))
        if self.should_stop():
            return False
        jobs = [
            _Job(
                self._next_id(),
                rnd,
                b,
                "probe",
                unrelated_prompt(rnd * 100 + i, self.config.long_prompt_tokens),
                self._stream_for(i),
            )
            for i in range(self.config.probes_per_round)
        ]
        futures: list[Future[None]] = [pool.submit(self._do, job) for job in jobs]
        try:
            wait(futures)
        except KeyboardInterrupt:
            for fut in futures:
                fut.cancel()
            raise
        if self.should_stop():
            return False
        self._do(
            _Job(
                self._next_id(),
                rnd,
                a,
                "followup",
                unrelated_prompt(rnd, None),
                self._stream_for(rnd),
            )
        )
        return not self.should_stop()

    def _control(self) -> None:
        """The positive control, after the rounds: account B asks for a random code back. Its
        answer carrying the code (whole or a fragment) shows that these answers could have
        carried a marker; otherwise no "no leak" can be said (docs/probe.md)."""
        if self.should_stop():
            return
        code = echo_code()
        stream = self._stream_for(0)
        job = _Job(self._next_id(), 0, self.accounts[1], "control", echo_prompt(code), stream)
        request = ChatRequest(self.config.model, job.prompt, job.stream, self.config.max_tokens)
        why: str | None = None
        try:
            resp = self.transports[job.account.label].chat(request)
        except TransportError as exc:
            self._record(job, None, exc)
            self._fail(job.id, job.account, exc)
            why = f"the control request failed ({exc.kind})"
        else:
            usable = carries_text(resp.fields)
            self._record(job, resp, None, usable)
            found = scan_fields(resp.fields, resp.raw, [code], self.config.fragment_chars)
            if not found:
                why = (
                    f"asked to repeat a random code, the endpoint answered (HTTP {resp.status}) "
                    "without it: no answer shows a marker could have come through"
                )
        echoed = why is None
        self.state.control = EchoControl(request_id=job.id, code=code.value, echoed=echoed, why=why)

    def _do(self, job: _Job) -> None:
        """Send one job, record it, scan its answer. Never raises TransportError."""
        if self.should_stop():
            return
        transport = self.transports[job.account.label]
        request = ChatRequest(self.config.model, job.prompt, job.stream, self.config.max_tokens)
        with self.state.lock:
            foreign = [m for m, planted_in, _ in self.state.markers if planted_in != job.id]
        try:
            resp = transport.chat(request)
        except TransportError as exc:
            self._record(job, None, exc)
            self._fail(job.id, job.account, exc)
            return
        usable = carries_text(resp.fields)
        self._record(job, resp, None, usable)
        if not usable:
            # an answer with no text could not have shown a marker: it tested nothing
            self._error(
                job.id,
                "empty_answer",
                f"{job.id}: the answer (HTTP {resp.status}) held no text a marker could have "
                "shown in (empty stream, only error events, no choices or empty content); "
                "not counted",
                fatal=False,
            )
        if job.plants is not None and resp.status < 400 and usable:
            # Only an accepted plant is a marker: a refused one was never in the server's cache,
            # so probes scanned for it would count towards "no leak found" with nothing tested.
            with self.state.lock:
                self.state.markers.append((job.plants, job.id, job.account.label))
        if foreign and usable:
            self._scan(job, resp, foreign)
        elif job.plants is None and not usable:
            # a probe or follow-up answer that could not have shown a marker, planted or not
            with self.state.lock:
                self.state.unusable.add(job.id)

    def _record(
        self,
        job: _Job,
        resp: ChatResponse | None,
        exc: TransportError | None,
        usable: bool | None = None,
    ) -> None:
        outcome: Literal["ok", "rejected", "error"] = "error"
        if resp is not None:
            outcome = "ok" if resp.status < 400 else "rejected"
        record = RequestRecord(
            id=job.id,
            round=job.round,
            account=job.account.label,
            role=job.role,
            stream=job.stream,
            prompt_chars=len(job.prompt),
            prompt_tokens_est=estimate_tokens(job.prompt),
            status=resp.status if resp else (exc.status if exc else None),
            outcome=outcome,
            latency_ms=resp.latency_ms if resp else None,
            retries=resp.retries if resp else (exc.retries if exc else 0),
            prompt_tokens=resp.prompt_tokens if resp else None,
            completion_tokens=resp.completion_tokens if resp else None,
            markers_planted=[job.plants.id] if job.plants else [],
            error=self.redact(exc.message) if exc else None,
            carries_text=usable,
        )
        with self.state.lock:
            self.state.requests.append(record)

    def _scan(self, job: _Job, resp: ChatResponse, foreign: list[Marker]) -> None:
        matches = scan_fields(resp.fields, resp.raw, foreign, self.config.fragment_chars)
        with self.state.lock:
            where = {m.id: (pid, acc) for m, pid, acc in self.state.markers}
            self.state.scanned[job.id] = bool(matches)
            for match in matches:
                planted_in, planted_by = where[match.marker.id]
                self.state.hits.append(
                    Hit(
                        request_id=job.id,
                        account=job.account.label,
                        role=job.role,
                        marker_id=match.marker.id,
                        planted_in=planted_in,
                        planted_by=planted_by,
                        match="full" if match.full else "fragment",
                        text=match.text,
                        chars=len(match.text),
                        location=match.location,
                        offset=match.offset,
                    )
                )

    def _fail(self, request_id: str | None, acc: ProbeAccount, exc: TransportError) -> None:
        message = self.redact(exc.message)
        self._error(request_id, exc.kind, message, exc.fatal)
        if exc.fatal and self.state.fatal is None:
            self.state.fatal = EndpointError(message, self.redact(_advice(exc, acc)))

    def _error(self, request_id: str | None, kind: str, message: str, fatal: bool) -> None:
        with self.state.lock:
            self.state.errors.append(
                ErrorRecord(request_id=request_id, kind=kind, message=message, fatal=fatal)
            )


def _advice(exc: TransportError, acc: ProbeAccount) -> str:
    """Return what the user should do about ``exc`` (names the env var for auth failures)."""
    advice: dict[str, str] = {
        "connect": "Check --base-url (scheme, host, port, usually ending in /v1) and that the "
        "server is running and reachable from here.",
        "auth": f"Check that the environment variable {acc.key_env} (account {acc.label}) holds "
        "a valid API key for this endpoint, with access to the model.",
        "garbage": "Check that --base-url points at an OpenAI-compatible API (usually ending in "
        "/v1), not a web page or a proxy's error page.",
        "not_found": "Check --base-url (it usually ends in /v1) and --model.",
    }
    return advice.get(exc.kind, "Retry later, or lower --concurrency.")


def new_run_id() -> str:
    """Return a fresh run id (``probe-`` + 12 hex characters)."""
    return "probe-" + uuid.uuid4().hex[:12]


def now_utc() -> datetime:
    """Return the current time in UTC."""
    return datetime.now(UTC)
