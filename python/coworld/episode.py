"""The episode runner every family shares: one async loop, scripted and Claude
seats in any mix, the wall clock, retries and fallbacks, and the replay.

The loop follows the fog games' resolution order of a ply; gauntlet and Hanabi are the
same shape without sensing (the core does steps 6-12 inside `apply`):

 1. begin the ply: the core names the mover
 2. wall-clock guard, before any observation is built
 3. build the mover's observation (from its own view only)
 4. decide: scripted inline, Claude in one bounded call
 5. parse and probe legality against the (immutable) state; one retry with the
    reason and the legal moves; then the family's fallback baseline
 6-12. the core applies the move; the event is recorded with the truncated text
 13. pace, then continue
"""

from __future__ import annotations

import asyncio
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import schemas
from .calls import CallsSidecar
from .clock import Clock
from .errors import ConfigError, ReplyRejected
from .games import FAMILIES, family_module, game
from .prices import check_price
from .replay import FORMAT_VERSION, JsonLinesWriter
from .sdk.canonical import canonical_json
from .seats.claude import Answer, ClaudeClient, has_credentials
from .seats.human import HumanPolicy
from .seats.infra import ModelTimeout
from .seats.policy import BaselinePolicy, ClaudePolicy, Policy, load_policy
from .seats.python_policy import PythonPolicy, PythonSeat
from .seats.reply import Reply
from .seats.time_limit import hold_alarm, release_alarm
from .streams import aliases, check_entropy, draw_entropy, seat_random
from .usage import Usage

TWO_SEAT_COLOURS = ("red", "blue")
#: The most of a reply's raw text a replay keeps in each attempt (the calls sidecar
#: keeps it whole, under its own cap): longer text is cut and the cut marked.
REPLAY_RAW_CHARS = 4096
#: A scripted seat whose decisions took this long has the files written out before
#: it decides (see `Episode._flush`).
SLOW_PLY_SECONDS = 0.01


@dataclass
class Decision:
    """How one move came to be: who made it, after which failures, at what cost."""

    move: str
    origin: str  # scripted | model | retry | policy (a Python policy) | human | fallback | opening
    # unparseable | illegal | timeout | refusal | truncated | empty | no-credentials |
    # error (a Python policy's exception)
    cause: str | None = None
    reply: Reply | None = None
    calls: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    #: Why the first attempt was retried (None: no retry).
    retried: str | None = None


def seat_label(seats: int, seat: int, alias: str) -> str:
    """How the feed names a seat: its colour in two-seat games, else its alias."""
    return TWO_SEAT_COLOURS[seat] if seats == 2 else alias


class Episode:
    """One episode. `await Episode(...).run()` plays it to the end and returns the results."""

    def __init__(
        self,
        spec: str | Mapping[str, Any],
        policies: Sequence[str | Policy],
        *,
        seed: int = 0,
        clock: Clock | None = None,
        out: str | Path | None = None,
        record_calls: bool = True,
        seat_transcripts: bool = False,
        client: ClaudeClient | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        on_usage: Callable[[Usage], None] | None = None,
        entropy: str | None = None,
        openings: int = 0,
    ) -> None:
        self.reducer = game(spec)
        #: Random legal plies played before the policies take over (origin "opening").
        self.openings = openings
        self.settings = dict(self.reducer.settings)
        self.state = self.reducer.init(seed=seed)
        self.seed = self.state.seed
        self.family = family_module(self.state.resolved_game)
        self.clock = clock or Clock()
        self.policies = [load_policy(p) for p in policies]
        self.seats = self.state.num_seats
        self._check_policies()
        #: The episode's own randomness (aliases, Python policies' RNG), never the
        #: seed's: recorded in the header; pass a replay's to run it again alike.
        self.entropy = draw_entropy() if entropy is None else check_entropy(entropy)
        self.aliases = aliases(self.entropy, self.seats)
        self.notes = [""] * self.seats
        self._labels = [seat_label(self.seats, s, self.aliases[s]) for s in range(self.seats)]
        self.usage = [Usage() for _ in range(self.seats)]
        self.origins: list[dict[str, int]] = [{} for _ in range(self.seats)]
        self.client = client
        self._owns_client = False
        #: Seconds the Claude seats spent waiting out the network: not the episode's time.
        self.infra_waited = 0.0
        self.claude_enabled = client is not None or has_credentials()
        self.on_event = on_event
        #: Hears each answered call's usage at once (the league writes it down).
        self.on_usage = on_usage
        self.out = Path(out) if out else None
        has_claude = any(isinstance(p, ClaudePolicy) for p in self.policies)
        self.record_calls = record_calls and self.out is not None and has_claude
        self.seat_transcripts = seat_transcripts and self.out is not None
        self._writers: dict[str, JsonLinesWriter | CallsSidecar] = {}
        self._python_seats: dict[int, PythonSeat] = {}
        #: Whether this episode holds the SIGALRM handler that interrupts a Python
        #: decision at its limit (from its first Python decision to its end).
        self._holds_alarm = False
        self.events: list[dict[str, Any]] = []
        self.moves = [0] * self.seats  # each seat's own move count: the only one it may know
        self._last_seen: list[str | None] = [None] * self.seats
        self._revealed = 0  # revelation records of the full view already on a ply event
        self._slowest = [0.0] * self.seats  # each seat's slowest decision so far, seconds
        self._systems: dict[str, str] = {}  # system prompts by operator prompt

    def _check_policies(self) -> None:
        if len(self.policies) != self.seats:
            raise ConfigError(
                f"{self.state.resolved_game} takes {self.seats} seats; "
                f"got {len(self.policies)} policies",
                "seats",
            )
        names = self.state.policy_names
        named: dict[str, Policy] = {}
        for seat, p in enumerate(self.policies):
            first = named.setdefault(p.name, p)
            if first != p:  # the replay names policies: two must not share a name
                raise ConfigError(
                    f"seat {seat}: {_source(first)} and {_source(p)} are both named "
                    f"{p.name!r}; give one another name (a Python policy's NAME)",
                    "policy",
                )
            if isinstance(p, PythonPolicy) and p.name.split("?", 1)[0] in names:
                raise ConfigError(
                    f"seat {seat}: {_source(p)} is named {p.name!r}, a baseline of "
                    f"{self.state.resolved_game}; give it another NAME",
                    "NAME",
                )
            if isinstance(p, ClaudePolicy):
                check_price(p.model, p.price, f"seat {seat}: ")
            if not isinstance(p, BaselinePolicy):
                continue
            if p.base not in names:
                raise ConfigError(
                    f"seat {seat}: {p.name!r} is neither a baseline of {self.state.resolved_game} "
                    f"({', '.join(names)}) nor a policy file (.toml, .md or .py)",
                    "policy",
                )
            try:
                self.state.check_baseline(p.name)
            except ConfigError as err:
                raise ConfigError(f"seat {seat}: {p.name!r}: {err}", err.field) from err

    # ---- events -------------------------------------------------------------

    def _emit(self, event: dict[str, Any], stream: str = "replay") -> None:
        if stream == "replay":
            self.events.append(event)
            if self.on_event:
                self.on_event(event)
        writer = self._writers.get(stream)
        if writer:
            writer.write(event)

    def _open_outputs(self) -> None:
        if not self.out:
            return
        # Written out before each wait (`_flush`), not line by line: a kill leaves
        # every event up to the model call in flight, at a write per call.
        self._writers["replay"] = JsonLinesWriter(self.out, flush_each=False)
        if self.record_calls:
            self._writers["calls"] = CallsSidecar(self.out, flush_each=False)
        if self.seat_transcripts:
            for seat in range(self.seats):
                name = f"seat{seat}"
                path = self.out.with_suffix(f".{name}.jsonl")
                self._writers[name] = JsonLinesWriter(path, flush_each=False)
                self._writers[name].write(
                    {
                        "type": "header",
                        "schema": schemas.TRANSCRIPT,
                        "format": FORMAT_VERSION,
                        "visibility": f"seat:{seat}",
                        "game": self.state.resolved_game,
                        "seat": seat,
                        "alias": self.aliases[seat],
                    }
                )

    def _header(self) -> dict[str, Any]:
        return {
            "type": "header",
            "schema": schemas.REPLAY,
            "format": FORMAT_VERSION,
            "visibility": "full",
            "config": {**self.state.config, **self.clock.as_config()},
            "settings": self.settings,
            "game": self.state.game,
            "resolvedGame": self.state.resolved_game,
            "family": FAMILIES[self.state.resolved_game],
            "seats": [
                {
                    "seat": s,
                    "alias": self.aliases[s],
                    "kind": p.kind,
                    "model": p.model if isinstance(p, ClaudePolicy) else None,
                }
                for s, p in enumerate(self.policies)
            ],
            "aliasToPolicy": {self.aliases[s]: p.name for s, p in enumerate(self.policies)},
            "policyDigests": {p.name: p.digest for p in self.policies},
            "entropy": self.entropy,
            # batch: no per-call timeout, no wall-clock deadline (rounds may take hours)
            **({"mode": "batch"} if getattr(self.client, "mode", None) == "batch" else {}),
            "view": self.reducer.view(self.state),
            "startedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        }

    def _observe(self, seat: int) -> None:
        """Append `seat`'s redacted view to its public transcript when it changed.

        A ply that leaves the seat's view as it was (in fog, an opponent's
        collision) leaves no record, and `step` is the seat's own move count: the
        transcript must not count plies the seat cannot see. The last record is
        the seat's own terminal view, never the full results."""
        writer = self._writers.get(f"seat{seat}")
        if writer is None:
            return
        view = self.reducer.view_for(self.state, seat)
        seen = canonical_json(view)
        if seen != self._last_seen[seat]:
            self._last_seen[seat] = seen
            writer.write({"type": "observation", "step": self.moves[seat], "view": view})

    def _flush(self) -> None:
        """Write out what the episode recorded so far: before anything it waits on
        (a model call, a pause), so a viewer following the files sees each state the
        model is asked about and a kill loses no decision already made."""
        for w in self._writers.values():
            w.flush()

    # ---- the loop -----------------------------------------------------------

    async def run(self) -> dict[str, Any]:
        self._open_outputs()
        try:
            return await self._run()
        finally:
            if self._holds_alarm:
                self._holds_alarm = False
                release_alarm()
            for w in self._writers.values():
                w.close()
            if self._owns_client and self.client is not None:
                await self.client.close()

    async def _run(self) -> dict[str, Any]:
        started = time.monotonic()
        deadline = started + self.clock.play_budget_seconds
        self._emit(self._header())
        for welcomed in range(self.seats):
            self._emit(
                {
                    "type": "welcome",
                    "seat": welcomed,
                    "alias": self.aliases[welcomed],
                    "game": self.state.resolved_game,
                    "view": self.reducer.view_for(self.state, welcomed),
                }
            )
            self._observe(welcomed)
        self._play_opening()
        while not self.state.is_terminal:
            seat = self.state.active_seat
            assert seat is not None
            # step 2 (time spent waiting out the network is not the episode's)
            if time.monotonic() - self.infra_waited + self._worst_ply(seat) > deadline:
                self.state = self.state.settle_deadline()
                self._emit({"type": "deadline", "ply": self.state.plies})
                for s in range(self.seats):
                    self._observe(s)
                break
            if self._may_be_slow(seat):
                self._flush()
            began = time.monotonic()
            decision = await self._decide(seat)
            self._slowest[seat] = max(self._slowest[seat], time.monotonic() - began)
            self._play(seat, decision)
            if self.clock.pace_seconds > 0:
                self._flush()
                await asyncio.sleep(self.clock.pace_seconds)
        results = dict(self.state.results or {})
        results["usage"] = [u.as_dict() for u in self.usage]
        results["decisions"] = self.origins
        results["wallSeconds"] = round(time.monotonic() - started, 3)
        self._emit({"type": "results", "results": results})
        return results

    def _play_opening(self) -> None:
        """The opening plies: random legal moves drawn from the seed alone (the core's
        opening stream, as the batch simulator plays them), each the mover's own
        ordinary ply."""
        for _ in range(self.openings):
            move, seat = self.state.opening_move(), self.state.active_seat
            if move is None or seat is None:
                return
            self._play(seat, Decision(move, "opening"))

    def _worst_ply(self, seat: int) -> float:
        """The wall-clock guard's worst case for the seat about to move: a Claude
        call (and its retry) only if this seat will make one."""
        asks_claude = isinstance(self.policies[seat], ClaudePolicy) and self.claude_enabled
        if asks_claude:
            return self.clock.worst_ply
        return max(self.clock.scripted_ply_seconds, self._slowest[seat])

    def _may_be_slow(self, seat: int) -> bool:
        """Whether the seat about to move may compute for long (a Python policy, or a
        baseline that took 10 ms or more before): the files are written out first,
        as before a model call, so a viewer does not wait on its computing."""
        policy = self.policies[seat]
        if isinstance(policy, PythonPolicy | HumanPolicy):
            return True
        return isinstance(policy, BaselinePolicy) and self._slowest[seat] >= SLOW_PLY_SECONDS

    def _play(self, seat: int, decision: Decision) -> None:
        reply = decision.reply or Reply(move=decision.move)
        ply = self.state.plies
        if reply.guess and hasattr(self.state, "with_guess"):
            self.state = self.state.with_guess(list(reply.guess))
        before = self.state
        self.state = self.state.apply(decision.move)
        self.moves[seat] += 1
        if reply.notes:
            self.notes[seat] = reply.notes
        self.origins[seat][decision.origin] = self.origins[seat].get(decision.origin, 0) + 1
        if decision.cause:
            key = f"{decision.origin}:{decision.cause}"
            self.origins[seat][key] = self.origins[seat].get(key, 0) + 1
        if decision.retried:
            key = f"retried:{decision.retried}"
            self.origins[seat][key] = self.origins[seat].get(key, 0) + 1
        event = {
            "type": "ply",
            "ply": ply,
            "seat": seat,
            "alias": self.aliases[seat],
            "move": decision.move,
            "origin": decision.origin,
            "cause": decision.cause,
            "say": reply.say,
            "notes": reply.notes,
            "guess": list(reply.guess),
            "banner": reply.banner,
            "feed": self._feed_line(before, seat, decision.move),
            "usage": decision.usage.as_dict() if decision.usage.calls else None,
            "attempts": decision.calls or None,
            "view": self.reducer.view(self.state),
        }
        event["revelations"] = self._new_revelations(event["view"])
        self._emit(event)
        if self.seat_transcripts:
            for s in range(self.seats):
                self._observe(s)

    def _new_revelations(self, view: Any) -> list[Any]:
        """The revelation records (the SDK's shape) this ply added to the full view's list
        (any family that keeps one), for the feed and the replay."""
        records = view.get("revelations") if isinstance(view, Mapping) else None
        if not isinstance(records, list):
            return []
        new, self._revealed = records[self._revealed :], len(records)
        return new

    def _feed_line(self, before: Any, seat: int, move: str) -> str:
        """The spectator feed's line for this ply, in algebraic notation."""
        return self.family.feed_line(before, self.state, seat, move, self._labels)

    # ---- deciding -----------------------------------------------------------

    async def _decide(self, seat: int) -> Decision:
        policy = self.policies[seat]
        if isinstance(policy, BaselinePolicy):
            return Decision(self.state.baseline_move(policy.name), "scripted")
        if isinstance(policy, PythonPolicy):
            return self._ask_python(seat, policy)
        if isinstance(policy, HumanPolicy):
            return await self._ask_human(seat, policy)
        if not self.claude_enabled:
            return self._fallback("no-credentials", [], Usage())
        return await self._ask_claude(seat, policy)

    def _ask_python(self, seat: int, policy: PythonPolicy) -> Decision:
        """The seat's own view and legal moves in, a reply out; a failure plays the fallback."""
        if seat not in self._python_seats:
            if not self._holds_alarm:
                self._holds_alarm = hold_alarm()
            self._python_seats[seat] = policy.new_seat(seat_random(self.entropy, seat))
        view = self.reducer.view_for(self.state, seat)
        verdict = self._python_seats[seat].decide(self.state, view, self.state.legal_moves())
        if _CTRL_C.is_set():  # the policy swallowed the Ctrl-C that landed in it
            raise KeyboardInterrupt
        calls = [verdict.record(self.state.plies, seat)]
        if verdict.reply is None:
            return self._fallback(verdict.cause or "error", calls, Usage())
        return Decision(verdict.reply.move, "policy", None, verdict.reply, calls)

    async def _ask_human(self, seat: int, policy: HumanPolicy) -> Decision:
        """Wait for the person at the seat's link; only a timeout (if one was set)
        plays the fallback."""
        if policy.table is None or policy.table.episode is not self:
            raise ConfigError(
                f"seat {seat} is a human seat: play it with `coworld play` (which serves "
                "its link) or give the episode a HumanTable",
                "policy",
            )
        reply, record = await policy.table.ask(seat)
        if reply is None:
            return self._fallback("timeout", [record], Usage())
        return Decision(reply.move, "human", None, reply, [record])

    def _fallback(self, cause: str, calls: list[dict[str, Any]], usage: Usage) -> Decision:
        move = self.state.baseline_move(self.family.FALLBACK)
        return Decision(move, "fallback", cause, Reply(move=move), calls, usage)

    def system_prompt(self, policy: ClaudePolicy) -> str:
        known = self._systems.get(policy.prompt)
        if known is not None:
            return known
        rules = self.family.RULES_TEXT
        if isinstance(rules, Mapping):
            rules = rules[self.state.resolved_game]
        text = self._systems[policy.prompt] = (
            f"{rules}\n\n# Your operator's instructions\n\n{policy.prompt}"
        )
        return text

    async def _ask_claude(self, seat: int, policy: ClaudePolicy) -> Decision:
        if self.client is None:
            self.client = ClaudeClient(timeout=self.clock.llm_timeout_seconds)
            self._owns_client = True
        system = self.system_prompt(policy)
        observation = self.family.observation_text(
            self.state,
            seat,
            notes=self.notes[seat],
            operator_prompt=policy.prompt,
            aliases=self.aliases,
        )
        messages: list[dict[str, Any]] = [{"role": "user", "content": observation}]
        calls: list[dict[str, Any]] = []
        usage = Usage()
        cause: str | None = None
        for attempt in (0, 1):
            answer, cause, reason, reply = await self._one_call(policy, system, messages, seat)
            if answer:
                usage.add(answer.usage)
                self.usage[seat].add(answer.usage)
            calls.append(self._call_record(seat, attempt, system, messages, answer, cause, reason))
            if reply is not None:
                origin = "model" if attempt == 0 else "retry"
                first = None if attempt == 0 else calls[0]["cause"]
                return Decision(reply.move, origin, first, reply, calls, usage, retried=first)
            if attempt == 0:
                if answer and answer.text:
                    messages = [*messages, {"role": "assistant", "content": answer.text}]
                messages = [*messages, {"role": "user", "content": self._retry_text(reason)}]
        fallback = self._fallback(cause or "unparseable", calls, usage)
        fallback.retried = calls[0]["cause"]
        return fallback

    async def _one_call(
        self, policy: ClaudePolicy, system: str, messages: list[dict[str, Any]], seat: int
    ) -> tuple[Answer | None, str | None, str, Reply | None]:
        """One bounded call: (answer, failure cause, reason, parsed reply). An
        infrastructure failure the client could not outlast (`InfraFailure`) is not a
        decision: it ends the episode as void."""
        assert self.client is not None
        self._flush()
        try:
            answer = await self.client.ask(policy, system, messages, self.on_usage)
        except ModelTimeout as err:
            self.infra_waited += err.waited
            return None, "timeout", f"no reply within {self.client.timeout:g} s", None
        self.infra_waited += answer.waited
        if answer.stop_reason == "refusal":
            return answer, "refusal", "the model declined to answer", None
        if not answer.text.strip():
            return answer, "empty", "the reply was empty", None
        try:
            reply = self.family.parse_reply(answer.text, self.state, seat, self.aliases)
        except ReplyRejected as err:
            if answer.stop_reason == "max_tokens":
                return answer, "truncated", _cut_reason(policy, err.reason), None
            return answer, err.cause, err.reason, None
        return answer, None, "", reply

    def _retry_text(self, reason: str) -> str:
        """The one retry: the reason and the complete legal set (never truncated), in
        the family's compact exact form when it has one (recon-hex-5: the cells, and
        that any cell is an anchor, instead of every anchor+cell pair)."""
        compact = getattr(self.family, "legal_text", None)
        if compact:
            shown = compact(self.state)
        else:
            shown = "Legal moves: " + ", ".join(self.reducer.legal_moves(self.state))
        return (
            f"Your reply could not be used: {reason}\n"
            f"{shown}\n"
            "Reply again with exactly one JSON object, as the rules describe."
        )

    def _call_record(
        self,
        seat: int,
        attempt: int,
        system: str,
        messages: list[dict[str, Any]],
        answer: Answer | None,
        cause: str | None,
        reason: str,
    ) -> dict[str, Any]:
        record = {
            "type": "call",
            "ply": self.state.plies,
            "seat": seat,
            "attempt": attempt,
            "outcome": "ok" if cause is None else cause,
            "cause": cause,
            "reason": reason or None,
            **_raw_fields(answer.text if answer else None),
            "usage": answer.usage.as_dict() if answer else None,
            "latency": round(answer.latency, 3) if answer else None,
            "infraRetries": answer.infra_retries if answer and answer.infra_retries else None,
        }
        # thinking stays in the calls sidecar: never in the replay, never to a seat
        thinking = answer.extra.get("thinking") if answer else None
        # the sidecar stores each text (system prompt, observation) once per episode
        self._emit(
            {
                **record,
                "raw": answer.text if answer else None,
                "stopReason": answer.stop_reason if answer else None,
                "system": system,
                "messages": messages,
                "thinking": thinking,
            },
            stream="calls",
        )
        return record


def _cut_reason(policy: ClaudePolicy, why: str) -> str:
    return (
        f"the reply was cut off at the limit of {policy.max_tokens} tokens ({why}); "
        "answer with the JSON object first, briefly"
    )


def _raw_fields(text: str | None) -> dict[str, Any]:
    """A reply's raw text as a replay's attempt keeps it: at most
    `REPLAY_RAW_CHARS`, with `rawChars` (the whole length) when it was cut."""
    if text is None or len(text) <= REPLAY_RAW_CHARS:
        return {"raw": text}
    return {"raw": text[:REPLAY_RAW_CHARS], "rawChars": len(text)}


def _source(policy: Policy) -> str:
    """How a message names where a policy comes from."""
    path = getattr(policy, "path", "")
    return f"policy file {path}" if path else f"baseline {policy.name}"


def play(
    spec: str | Mapping[str, Any], policies: Sequence[str | Policy], **kwargs: Any
) -> dict[str, Any]:
    """Run one episode synchronously (see `Episode`); returns its results."""
    return run(Episode(spec, policies, **kwargs))


def run(episode: Episode) -> dict[str, Any]:
    """Run `episode` on an event loop of its own. With a Python seat, on the main thread,
    Ctrl-C raises KeyboardInterrupt wherever it lands (in a policy's `act`, between
    plies): asyncio's own handler only cancels the task, which an episode that never
    awaits (Python and scripted seats) would notice at its end."""
    if not (
        any(isinstance(p, PythonPolicy) for p in episode.policies)
        and threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    ):
        return asyncio.run(episode.run())
    previous = signal.signal(signal.SIGINT, _interrupt)
    _CTRL_C.clear()
    try:
        return asyncio.run(episode.run())
    finally:
        signal.signal(signal.SIGINT, previous)
        _CTRL_C.clear()


#: Set by a Ctrl-C during `run`: a policy's bare `except:` may swallow the
#: KeyboardInterrupt raised inside it, so the runner raises it again after the call.
_CTRL_C = threading.Event()


def _interrupt(signum: int, frame: Any) -> None:
    _CTRL_C.set()
    raise KeyboardInterrupt


__all__ = ["Clock", "Decision", "Episode", "play", "run", "seat_label"]
