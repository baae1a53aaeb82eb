"""Several commands as one deployment: do the servers, the router and the nodes of one text connect?

Each command of a block is checked on its own by ``check.py``; a deployment can still fail as a whole. This
module reads every ``launch_server`` and ``launch_router`` command of one text (two or more of them) and
checks what connects them, as SGLang 0.5.23 and sglang-router 0.3.2 do it:

- **The router reaches its servers.** Each ``--prefill`` / ``--decode`` / ``--worker-urls`` target names a
  host and port; a server of that role must listen there. A server listens on ``--host`` (default
  ``127.0.0.1``: ``sglang/srt/arg_groups/arg_utils.py`` line 23) and ``--port`` (default 30000); one bound to
  loopback is not reached at any other address, its own machine's included.
- **PD roles pair up, and their bootstrap ports agree.** The prefill server's bootstrap server listens on
  its ``--host`` and ``--disaggregation-bootstrap-port`` (``sglang/srt/managers/disagg_service.py``
  ``start_disagg_service``); the router tells the decode server that port (``--prefill URL PORT``), or, when
  it gives none, the decode server uses its own ``--disaggregation-bootstrap-port``
  (``sglang/srt/managers/scheduler.py`` ``_handle_generate_request``, line 2970).
- **The parsers sit where the output leaves.** In PD mode the router returns the decode server's response to
  the client (``sglang_router/mini_lb.py`` ``generate`` / ``generate_stream``, lines 147–174 and 220–266 of
  the 0.3.2 wheel), so ``--reasoning-parser`` and ``--tool-call-parser`` must be on the decode server.
- **The nodes of one server agree.** Commands that share a ``--dist-init-addr`` are the nodes of one server:
  the same ``--nnodes``, distinct ``--node-rank``, and the same model and parallel sizes.

A value hidden by a placeholder (``${local_ip}``, ``<prefill-ip>``) is compared as written: the same
placeholder is the same address, and two different ones may be. Findings carry the edit that mends the
command they are about (``Finding.edits``), from which ``corrections.py`` writes the corrected command.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from handbook.checker.argv import UNKNOWN, ParsedArgs, parse_args
from handbook.checker.findings import Finding
from handbook.checker.predicates import is_loopback
from handbook.checker.shell import Invocation, Word
from handbook.core.messages import message
from handbook.core.text import Text
from handbook.engine.snapshot import EngineSnapshot

LINK = "05-parallelism.md#pd-disaggregation"
ROLES = ("prefill", "decode")
# The flags every node of one multi-node server must give alike (the model and its layout).
SAME_ON_EVERY_NODE = (
    "--model-path",
    "--tp-size",
    "--pp-size",
    "--ep-size",
    "--attn-dp-size",
    "--dp-size",
    "--disaggregation-mode",
)
PD_PARSERS = ("--reasoning-parser", "--tool-call-parser")
MAX_NODES = 1024  # the missing node ranks are listed up to this many nodes
_URL = re.compile(r"(?:[a-z][a-z0-9+.-]*://)?(\[[^\]]*\]|[^:/\[\]]*)(?::([^/]*))?(/.*)?", re.IGNORECASE)


@dataclass(frozen=True)
class Value:
    """A value as written (``text``), whether a placeholder hides it, and whether it was given at all (else
    ``text`` is the parser default)."""

    text: str
    placeholder: bool = False
    given: bool = True

    def same(self, other: Value) -> bool | None:
        """Equal, different, or None when a placeholder leaves it open."""
        if self.placeholder or other.placeholder:
            return True if self.text == other.text else None
        return _canonical(self.text) == _canonical(other.text)


def _canonical(text: str) -> str:
    text = text.strip().lower()
    return str(int(text)) if text.isdecimal() else text.strip("[]")


@dataclass
class Server:
    """One ``launch_server`` command."""

    invocation: Invocation
    args: ParsedArgs
    role: str  # "prefill" | "decode" | "plain"
    host: Value
    port: Value
    bootstrap: Value
    dist: Value | None
    nnodes: Any
    rank: Any
    targeted: bool = False

    @property
    def line(self) -> int:
        return self.invocation.line

    @property
    def serves_http(self) -> bool:
        """Only node rank 0 of a multi-node server runs the HTTP server the router talks to."""
        return self.rank in (0, UNKNOWN) or not isinstance(self.rank, int)


@dataclass
class Target:
    """One server a router sends requests to."""

    flag: str  # --prefill | --decode | --worker-urls
    word: Word
    host: Value
    port: Value
    bootstrap: Value | None  # --prefill URL PORT; None: not given (or "none")
    router: Router

    @property
    def role(self) -> str:
        return {"--prefill": "prefill", "--decode": "decode"}.get(self.flag, "plain")


@dataclass
class Router:
    invocation: Invocation
    args: ParsedArgs
    targets: list[Target] = field(default_factory=list)

    @property
    def line(self) -> int:
        return self.invocation.line


def _value(args: ParsedArgs, flag: str) -> Value | None:
    """The flag's value as written, else its parser default; None where this release lacks the flag."""
    option = args.parser.get(flag)
    if option is None:
        return None
    given = args.given.get(option.dest)
    if given is None:
        default = args.value(option.dest)
        return Value("" if default is None else str(default), given=False)
    if not given.values:
        return Value(str(given.value))
    word = given.values[0]
    return Value(word.text, word.placeholder)


def _number(args: ParsedArgs, flag: str) -> Any:
    option = args.parser.get(flag)
    if option is None:
        return None
    value = args.value(option.dest)
    return value if value is UNKNOWN or isinstance(value, int) else None


def _url(word: Word, default_port: str = "80") -> tuple[Value, Value]:
    """A router target's host and port as written; a placeholder in either part marks that part."""
    match = _URL.fullmatch(word.text)
    host, port = (match.group(1), match.group(2)) if match else (word.text, None)
    if port is None:
        port = "443" if word.text.lower().startswith("https://") else default_port
    return Value(host, "$" in host or "<" in host), Value(port, "$" in port or "<" in port)


def _server(invocation: Invocation, args: ParsedArgs) -> Server:
    mode = _value(args, "--disaggregation-mode")
    role = mode.text if mode is not None and mode.text in ROLES else "plain"
    dist = _value(args, "--dist-init-addr")
    return Server(
        invocation,
        args,
        role,
        host=_value(args, "--host") or Value("127.0.0.1", given=False),
        port=_value(args, "--port") or Value("30000", given=False),
        bootstrap=_value(args, "--disaggregation-bootstrap-port") or Value("8998", given=False),
        dist=dist if dist is not None and dist.given else None,
        nnodes=_number(args, "--nnodes"),
        rank=_number(args, "--node-rank"),
    )


def _router(invocation: Invocation, args: ParsedArgs) -> Router:
    router = Router(invocation, args)
    for given in args.order:
        flag = given.option.name
        if flag not in ("--prefill", "--decode", "--worker-urls"):
            continue
        words = given.values if flag == "--worker-urls" else given.values[:1]
        for word in words:
            host, port = _url(word)
            bootstrap = None
            if flag == "--prefill" and len(given.values) > 1:
                extra = given.values[1]
                if extra.text.lower() != "none":
                    bootstrap = Value(extra.text, extra.placeholder)
            router.targets.append(Target(flag, word, host, port, bootstrap, router))
    return router


# ------------------------------------------------------------------------------------------ hosts
def _kind(host: Value) -> str:
    """any (0.0.0.0, ::), loopback, a literal address or name, or unknown (a placeholder)."""
    if host.placeholder:
        return "unknown"
    text = host.text.strip().strip("[]").lower()
    if text in ("", "0.0.0.0", "::"):
        return "any"
    return "loopback" if is_loopback(text) else "literal"


def reaches(target: Value, server: Value) -> bool | None:
    """Whether a connection to ``target`` reaches a server bound to ``server``: True, False, or None when
    placeholders leave it open."""
    bound, to = _kind(server), _kind(target)
    if bound == "any":
        return True
    if bound == "loopback":
        return to == "loopback"  # a name or address of the network, a placeholder's included, is not
    if bound == "literal":
        if to == "unknown":
            return None
        return to == "literal" and _canonical(target.text) == _canonical(server.text)
    return True if target.text == server.text else None


def _ports_meet(target: Value, server: Value) -> bool:
    return target.same(server) is not False


def _serves(target: Target, server: Server) -> bool:
    """The server may be the one the target names: the same port, and a host the target can reach."""
    return _ports_meet(target.port, server.port) and reaches(target.host, server.host) is not False


def _said(value: Value, flag: str) -> str | Text:
    """A server's value as the message quotes it: as written, or the default with the flag it stands for."""
    return value.text if value.given else message("deploy-default", value=value.text, flag=flag)


def _fix_text(edits: list[tuple[str, ...]]) -> str:
    return " ".join(f"{edit[1]} {edit[2]}" for edit in edits if edit[0] == "set")


# ------------------------------------------------------------------------------------------ checks
def _finding(
    severity: str,
    key: str,
    line: int,
    subject: str,
    edits: Iterable[tuple[str, ...]] = (),
    at: int | None = None,
    **values: object,
) -> Finding:
    code = "deploy." + key.removeprefix("deploy-").split("-")[0]
    return Finding(
        severity,  # type: ignore[arg-type]
        code,
        message(key, **values),
        line,
        subject,
        link=LINK,
        edits=tuple(edits),
        edit_line=at,
    )


def _target_findings(servers: list[Server], routers: list[Router]) -> list[Finding]:
    findings: list[Finding] = []
    unmatched: list[Target] = []
    for router in routers:
        for target in router.targets:
            found = False
            for server in servers:
                if server.role != target.role or not server.serves_http:
                    continue
                if _serves(target, server):
                    server.targeted = found = True
            if not found:
                unmatched.append(target)
    for target in unmatched:
        findings += _unmatched(target, servers)
    return findings


def _unmatched(target: Target, servers: list[Server]) -> list[Finding]:
    url, role, line = target.word.raw, target.role, target.word.line
    same_role = [s for s in servers if s.role == target.role and s.serves_http]
    # the right port, the wrong host: the server cannot be reached there
    for server in same_role:
        if _ports_meet(target.port, server.port):
            loopback = _kind(server.host) == "loopback"
            key = "deploy-unreachable-loopback" if loopback else "deploy-unreachable-host"
            # a placeholder may stand for this machine's loopback address: then it is a warning
            severity = "warning" if target.host.placeholder else "error"
            return [
                _finding(
                    severity,
                    key,
                    line,
                    target.flag,
                    [("set", "--host", target.host.text)],
                    server.line,
                    flag=target.flag,
                    url=url,
                    server_line=server.line,
                    host=_said(server.host, "--host"),
                    target_host=target.host.text,
                )
            ]
    # another role's server listens there
    for server in servers:
        if (
            server.role != role
            and server.serves_http
            and reaches(target.host, server.host) is True
            and target.port.same(server.port)
        ):
            return [
                _finding(
                    "error",
                    "deploy-role",
                    line,
                    target.flag,
                    flag=target.flag,
                    url=url,
                    server_line=server.line,
                    server_role=server.role,
                    role=role,
                )
            ]
    spare = [s for s in same_role if not s.targeted]
    if len(spare) == 1:
        server = spare[0]
        edits = [("set", "--port", target.port.text)]
        if reaches(target.host, server.host) is False:
            edits.append(("set", "--host", target.host.text))
        server.targeted = True
        return [
            _finding(
                "error",
                "deploy-port",
                line,
                target.flag,
                edits,
                server.line,
                flag=target.flag,
                url=url,
                server_line=server.line,
                port=_said(server.port, "--port"),
                fix=_fix_text(edits),
            )
        ]
    if same_role or any(s.role != role for s in servers):
        return [_finding("error", "deploy-absent", line, target.flag, flag=target.flag, url=url, role=role)]
    return []


def _pairing(servers: list[Server], routers: list[Router]) -> list[Finding]:
    roles = {s.role for s in servers}
    wanted = {t.role for r in routers for t in r.targets} & set(ROLES)
    findings = []
    for role in ROLES:
        other = ROLES[1 - ROLES.index(role)]
        if (role in roles or role in wanted) and other not in roles | wanted:
            line = next((s.line for s in servers if s.role == role), routers[0].line if routers else 1)
            findings.append(
                _finding(
                    "warning", "deploy-unpaired", line, "--disaggregation-mode", role=role, missing=other
                )
            )
    return findings


def _bootstrap(servers: list[Server], routers: list[Router]) -> list[Finding]:
    findings = []
    prefills = [s for s in servers if s.role == "prefill" and s.serves_http]
    decodes = [s for s in servers if s.role == "decode" and s.serves_http]
    for router in routers:
        for target in router.targets:
            if target.role != "prefill":
                continue
            for server in prefills:
                if not _serves(target, server):
                    continue
                if target.bootstrap is not None:
                    if target.bootstrap.same(server.bootstrap) is False:
                        findings.append(
                            _finding(
                                "error",
                                "deploy-bootstrap-router",
                                target.word.line,
                                "--prefill",
                                [("set", "--disaggregation-bootstrap-port", target.bootstrap.text)],
                                server.line,
                                url=target.word.raw,
                                given=target.bootstrap.text,
                                server_line=server.line,
                                port=server.bootstrap.text,
                            )
                        )
                    continue
                for decode in decodes:
                    if decode.bootstrap.same(server.bootstrap) is False:
                        findings.append(
                            _finding(
                                "error",
                                "deploy-bootstrap-own",
                                decode.line,
                                "--disaggregation-bootstrap-port",
                                [("set", "--disaggregation-bootstrap-port", server.bootstrap.text)],
                                decode.line,
                                url=target.word.raw,
                                decode_line=decode.line,
                                decode_port=decode.bootstrap.text,
                                prefill_line=server.line,
                                prefill_port=server.bootstrap.text,
                            )
                        )
    if not routers:
        for prefill in prefills:
            for decode in decodes:
                if decode.bootstrap.same(prefill.bootstrap) is False:
                    findings.append(
                        _finding(
                            "warning",
                            "deploy-bootstrap-apart",
                            decode.line,
                            "--disaggregation-bootstrap-port",
                            decode_line=decode.line,
                            decode_port=decode.bootstrap.text,
                            prefill_line=prefill.line,
                            prefill_port=prefill.bootstrap.text,
                        )
                    )
    return findings


def _parsers(servers: list[Server], routers: list[Router]) -> list[Finding]:
    """PD: the flags that shape what the client reads must be on the decode server."""
    if routers and not any(t.role == "decode" for r in routers for t in r.targets):
        return []
    findings = []
    prefills = [s for s in servers if s.role == "prefill" and s.serves_http]
    decodes = [s for s in servers if s.role == "decode" and s.serves_http]
    for decode in decodes:
        for flag in PD_PARSERS:
            wanted = None
            for prefill in prefills:
                value = _value(prefill.args, flag)
                if value is not None and value.given:
                    wanted = (prefill, value)
                    break
            if wanted is None:
                continue
            prefill, value = wanted
            have = _value(decode.args, flag)
            if have is not None and have.given and have.same(value) is not False:
                continue
            findings.append(
                _finding(
                    "warning",
                    "deploy-parsers",
                    decode.line,
                    flag,
                    [("set", flag, value.text)],
                    decode.line,
                    flag=flag,
                    value=value.text,
                    prefill_line=prefill.line,
                    decode_line=decode.line,
                )
            )
    return findings


def _nodes(servers: list[Server]) -> list[Finding]:
    groups: dict[tuple[str, str], list[Server]] = {}
    for server in servers:
        if server.dist is None:
            continue
        if not (isinstance(server.nnodes, int) and server.nnodes > 1):
            continue
        groups.setdefault((server.dist.text, server.role), []).append(server)
    findings = []
    for (addr, _), members in groups.items():
        nnodes = sorted({m.nnodes for m in members})
        if len(nnodes) > 1:
            findings.append(
                _finding(
                    "error",
                    "deploy-nodes-count",
                    members[0].line,
                    "--nnodes",
                    addr=addr,
                    values=", ".join(str(n) for n in nnodes),
                )
            )
            continue
        ranks: dict[int, Server] = {}
        for member in members:
            if not isinstance(member.rank, int):
                continue
            if member.rank in ranks:
                findings.append(
                    _finding(
                        "error",
                        "deploy-nodes-rank",
                        member.line,
                        "--node-rank",
                        addr=addr,
                        rank=member.rank,
                        first=ranks[member.rank].line,
                    )
                )
            ranks.setdefault(member.rank, member)
        for flag in SAME_ON_EVERY_NODE:
            values = [_value(m.args, flag) for m in members]
            if any(v is None for v in values):
                continue
            seen = [v for v in values if v is not None]
            if any(a.same(b) is False for a in seen for b in seen):
                shown = ", ".join(f"{v.text} ({m.line})" for v, m in zip(seen, members, strict=True))
                line = members[0].line
                findings.append(
                    _finding("error", "deploy-nodes-flags", line, flag, addr=addr, flag=flag, values=shown)
                )
        missing = [r for r in range(nnodes[0]) if r not in ranks] if nnodes[0] <= MAX_NODES else []
        if missing and ranks:
            findings.append(
                _finding(
                    "note",
                    "deploy-nodes-missing",
                    members[0].line,
                    "--node-rank",
                    addr=addr,
                    nnodes=nnodes[0],
                    ranks=", ".join(str(r) for r in missing),
                )
            )
    return findings


def deployment_findings(invocations: list[Invocation], snapshot: EngineSnapshot) -> list[Finding]:
    """What connects the servers and routers of one text, when it runs two or more of them."""
    servers: list[Server] = []
    routers: list[Router] = []
    for invocation in invocations:
        if invocation.kind != "program" or invocation.program not in ("launch_server", "launch_router"):
            continue
        args, _ = parse_args(snapshot, invocation.program, invocation.args)
        if invocation.program == "launch_server":
            servers.append(_server(invocation, args))
        else:
            routers.append(_router(invocation, args))
    if len(servers) + len(routers) < 2:
        return []
    findings = _target_findings(servers, routers)
    findings += _pairing(servers, routers)
    findings += _bootstrap(servers, routers)
    findings += _parsers(servers, routers)
    findings += _nodes(servers)
    return findings
