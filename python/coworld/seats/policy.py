"""Policies: who plays a seat. A scripted baseline by name, a policy file
played by Claude (TOML, or Markdown with TOML `+++` / YAML `---` front matter),
or a Python policy file (`.py`, see `python_policy`)."""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .human import HUMAN, HumanPolicy
from .python_policy import PythonPolicy, load_python_policy

DEFAULT_MODEL = "claude-sonnet-4-5"
DEFAULT_MAX_TOKENS = 1024
#: The largest operator prompt a policy file may carry (it is sent with every call).
MAX_PROMPT_BYTES = 64 * 1024
#: The smallest thinking budget the API accepts.
MIN_THINKING_BUDGET = 1024
FIELDS = ("name", "model", "max_tokens", "temperature", "effort", "thinking", "price", "prompt")
EFFORTS = ("low", "medium", "high", "xhigh", "max")


@dataclass(frozen=True)
class BaselinePolicy:
    """A scripted baseline of the Rust core (`tactician`, `probe`, `conventions`, ...),
    possibly with parameters (`tactician?eps=0.3`, `mcts?sims=1000&eps=0.1`); the full
    name is the policy's identity."""

    name: str
    kind = "scripted"

    @property
    def base(self) -> str:
        """The baseline without its parameters."""
        return self.name.split("?", 1)[0]

    @property
    def digest(self) -> str:
        return "baseline:" + self.name


@dataclass(frozen=True)
class ClaudePolicy:
    """A per-seat prompt played by Claude through the Messages API."""

    name: str
    prompt: str
    model: str = DEFAULT_MODEL
    max_tokens: int = DEFAULT_MAX_TOKENS
    #: None: the model's default. The current `anthropic` client has no `temperature`
    #: argument, so a set value travels as an extra body field.
    temperature: float | None = None
    #: Optional `output_config.effort` (low, medium, high, xhigh, max).
    effort: str | None = None
    path: str = ""
    #: Extended thinking: None (off), "adaptive", or a budget of thinking tokens.
    thinking: str | int | None = None
    #: USD per million (input, output) tokens, overriding the price table.
    price: tuple[float, float] | None = None
    #: False when the file named no `model` and `DEFAULT_MODEL` plays (said when loading).
    model_given: bool = field(default=True, compare=False)
    kind = "claude"

    @property
    def default_notice(self) -> str | None:
        """The line saying that the default model plays, when the file named none."""
        if self.model_given:
            return None
        return f"{self.path or self.name}: no `model` given: {self.model} plays (the default)"

    @property
    def digest(self) -> str:
        """A hash of everything that changes how the policy plays (not its price)."""
        text = f"{self.model}\n{self.max_tokens}\n{self.temperature}\n{self.effort}\n{self.prompt}"
        if self.thinking is not None:
            text += f"\nthinking={self.thinking}"
        return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:16]

    @property
    def thinking_param(self) -> dict[str, Any] | None:
        """`thinking` as the installed client takes it (ThinkingConfig*Param)."""
        if self.thinking is None:
            return None
        if self.thinking == "adaptive":
            return {"type": "adaptive"}
        return {"type": "enabled", "budget_tokens": int(self.thinking)}


Policy = BaselinePolicy | ClaudePolicy | PythonPolicy | HumanPolicy

#: Suffixes of policy files (anything else names a baseline).
POLICY_FILES = (".toml", ".md", ".markdown", ".py")


def load_policy(spec: str | Policy) -> Policy:
    """A baseline name, `human` (a person at the seat's link), or a path to a policy
    file (`.toml`, `.md` or `.py`)."""
    if isinstance(spec, BaselinePolicy | ClaudePolicy | PythonPolicy | HumanPolicy):
        return spec
    if spec == HUMAN:
        return HumanPolicy()
    path = Path(spec)
    if path.suffix not in POLICY_FILES:
        return BaselinePolicy(spec)
    if path.is_dir():
        raise ConfigError(f"policy file {spec} is a directory, not a file", "policy")
    if not path.is_file():
        raise ConfigError(f"policy file {spec} does not exist", "policy")
    return load_python_policy(path) if path.suffix == ".py" else _load_file(path)


def _load_file(path: Path) -> ClaudePolicy:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise ConfigError(
            f"{path}: not UTF-8 text (byte {err.start}: {err.reason})", "policy"
        ) from err
    text = text.removeprefix("\ufeff")  # a byte-order mark some editors write
    if path.suffix == ".toml":
        meta = _parse_toml(text, path)
        body = meta.pop("prompt", None)
    else:
        meta, body = split_front_matter(text, path)
    if not isinstance(body, str) or not body.strip():
        raise ConfigError(
            f"{path}: the policy has no prompt (field `prompt` or the Markdown body)", "prompt"
        )
    unknown = set(meta) - set(FIELDS)
    if unknown:
        raise ConfigError(
            f"{path}: unknown field {sorted(unknown)[0]!r}; fields: {', '.join(FIELDS)}",
            sorted(unknown)[0],
        )
    name = meta.get("name", path.stem)
    max_tokens = meta.get("max_tokens", DEFAULT_MAX_TOKENS)
    temperature = meta.get("temperature")
    effort = meta.get("effort")
    model = meta.get("model", DEFAULT_MODEL)
    if not isinstance(name, str) or not name:
        raise ConfigError(f"{path}: `name` must be a non-empty string", "name")
    if not isinstance(model, str) or not model:
        raise ConfigError(f"{path}: `model` must be a model id string", "model")
    if (
        not isinstance(max_tokens, int)
        or isinstance(max_tokens, bool)
        or not 1 <= max_tokens <= 64000
    ):
        raise ConfigError(f"{path}: `max_tokens` must be an integer in 1..64000", "max_tokens")
    if temperature is not None and (
        not isinstance(temperature, int | float)
        or isinstance(temperature, bool)
        or not 0 <= temperature <= 1
    ):
        raise ConfigError(f"{path}: `temperature` must be a number in 0..1", "temperature")
    if effort is not None and effort not in EFFORTS:
        raise ConfigError(f"{path}: `effort` must be one of {', '.join(EFFORTS)}", "effort")
    thinking = _thinking(meta.get("thinking"), max_tokens, path)
    _refused_combination(model, temperature, thinking, path)
    price = parse_price(meta.get("price"), f"{path}: `price`") if "price" in meta else None
    size = len(body.strip().encode())
    if size > MAX_PROMPT_BYTES:
        raise ConfigError(
            f"{path}: the prompt is {size:,} bytes; the limit is {MAX_PROMPT_BYTES:,} "
            "(it is sent with every call)",
            "prompt",
        )
    from ..prices import check_price

    check_price(model, price, f"{path}: ")
    return ClaudePolicy(
        name=name,
        prompt=body.strip(),
        model=model,
        max_tokens=max_tokens,
        temperature=None if temperature is None else float(temperature),
        effort=effort,
        path=str(path),
        thinking=thinking,
        price=price,
        model_given="model" in meta,
    )


def _thinking(value: Any, max_tokens: int, path: Path) -> str | int | None:
    if value is None or value == "adaptive":
        return value
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(
            f'{path}: `thinking` must be "adaptive" or a budget of thinking tokens', "thinking"
        )
    if not MIN_THINKING_BUDGET <= value < max_tokens:
        raise ConfigError(
            f"{path}: a `thinking` budget must be at least {MIN_THINKING_BUDGET} and less "
            f"than `max_tokens` ({max_tokens}), not {value}",
            "thinking",
        )
    return value


#: Models that refuse a thinking budget (`thinking: N`) and take only "adaptive":
#: Claude 4.7 and later, and the Fable and Mythos families.
_NO_BUDGET = re.compile(r"^claude-(?:(?:opus|sonnet|haiku)-(?:4-[7-9]|[5-9])|fable|mythos)")


def _refused_combination(
    model: str, temperature: float | None, thinking: str | int | None, path: Path
) -> None:
    """Parameters the Messages API answers with 400 invalid_request_error, refused
    here instead of on every call of a league."""
    if thinking is not None and temperature is not None and temperature != 1:
        raise ConfigError(
            f"{path}: `temperature` ({temperature}) cannot be combined with `thinking`: "
            "the API takes only temperature 1 with thinking; drop one of them",
            "temperature",
        )
    if isinstance(thinking, int) and _NO_BUDGET.match(model):
        raise ConfigError(
            f"{path}: `thinking` as a budget ({thinking}) is refused by model {model!r}: "
            'use `thinking: "adaptive"`',
            "thinking",
        )


def parse_price(value: Any, where: str) -> tuple[float, float]:
    """[input, output] USD per million tokens."""
    if (
        not isinstance(value, list | tuple)
        or len(value) != 2
        or not all(isinstance(x, int | float) and not isinstance(x, bool) and x >= 0 for x in value)
    ):
        raise ConfigError(
            f"{where} must be [input, output] USD per million tokens, not {value!r}", "price"
        )
    return float(value[0]), float(value[1])


def _parse_toml(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{path}: not valid TOML: {err}", "policy") from err


#: A first line that reads as a front-matter field (`model: ...`, `name = "..."`).
_FIELD_LINE = re.compile(rf"^\s*({'|'.join(FIELDS)})\s*[:=]")


def split_front_matter(text: str, path: Path) -> tuple[dict[str, Any], str]:
    """(fields, body) of a Markdown policy. A byte-order mark and blank lines before
    the opening fence are allowed; front matter that does not parse, or fields
    without fences, is an error naming the line."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return {}, text
    fence = lines[first].rstrip()
    if fence not in ("+++", "---"):
        if _FIELD_LINE.match(lines[first]):
            raise ConfigError(
                f"{path}: line {first + 1} reads as a front-matter field, but front matter "
                "must open with a line `---` (YAML) or `+++` (TOML)",
                "policy",
            )
        return {}, text
    close = next((i for i in range(first + 1, len(lines)) if lines[i].rstrip() == fence), None)
    if close is None:
        raise ConfigError(
            f"{path}: front matter opened with {fence} on line {first + 1} is never closed",
            "policy",
        )
    head, body = "".join(f"{x}\n" for x in lines[first + 1 : close]), "\n".join(lines[close + 1 :])
    meta = _parse_head(head, fence, path, first + 1)
    if not isinstance(meta, dict):
        raise ConfigError(
            f"{path}: the front matter on lines {first + 2}-{close} must be a mapping of fields",
            "policy",
        )
    return meta, body


def _parse_head(head: str, fence: str, path: Path, offset: int) -> Any:
    """The front matter's fields; an error names the file's line (`offset`: the
    lines before the head)."""
    if fence == "+++":
        try:
            return tomllib.loads(head)
        except tomllib.TOMLDecodeError as err:
            where = re.search(r"\(at line (\d+), column (\d+)\)", str(err))
            last = head.count("\n")  # "at end of document": the header's last line
            line = f"line {(int(where.group(1)) if where else last) + offset}: "
            msg = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(err))
            raise ConfigError(
                f"{path}: {line}front matter is not valid TOML: {msg}", "policy"
            ) from None
    import yaml

    try:
        return yaml.safe_load(head) or {}
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        if mark is None or mark.line >= head.count("\n"):  # at the end: where it opened
            mark = getattr(err, "context_mark", None) or mark
        line = f"line {mark.line + 1 + offset}: " if mark is not None else ""
        problem = getattr(err, "problem", None) or str(err).splitlines()[0]
        raise ConfigError(
            f"{path}: {line}front matter is not valid YAML: {problem}", "policy"
        ) from None
