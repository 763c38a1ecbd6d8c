"""Information partitions: the SDK contract every coworld game is built on (docs/sdk.md).

* protocol: `TurnReducer` (init, apply, view, optional view_for), `SubmittedAction`,
  `TurnView`, `defines_view_for`, `seat_view`.
* visibility: `Public`, `Seats`, `Hidden`, `ZoneVisibilityPolicy`,
  `BoardVisibilityPolicy`, `derive_seat_view` (the standard redactions).
* geometry: `SquareGrid`, `HexGrid`, `line_of_sight`, `field_cells`, `fov_predicate`.
* `Bag`: an unordered zone whose storage order no view can observe.
* `create_information_revelation`: the standard record of a hidden thing revealed.
* `assert_no_information_leak` (+ `Scenario`): the leak check products run in tests.
* transcripts: `full_transcript`, `seat_transcript`, `recheck_transcript`,
  `to_jsonl`, `from_jsonl`.
* `AgentEnvironment`: one agent in one seat, the others scripted.
* `solve_level`: exact solver for open-information games.
"""

from .agent import AgentEnvironment, StepResult
from .bag import Bag
from .canonical import canonical_json, first_difference
from .episode import (
    Episode,
    EpisodeOver,
    active_seat_of,
    is_terminal_of,
    play,
    results_of,
    seat_results_of,
)
from .geometry import (
    HexGrid,
    SquareGrid,
    field_cells,
    fov_predicate,
    line_of_sight,
    sight_lines,
)
from .leak import Scenario, assert_no_information_leak, observation, observation_stream
from .protocol import SubmittedAction, TurnReducer, TurnView, defines_view_for, seat_view
from .revelation import create_information_revelation
from .solver import OpenInformationRequired, SearchTooLarge, Solution, solve_level
from .transcript import (
    TranscriptMismatch,
    from_jsonl,
    full_transcript,
    recheck_transcript,
    seat_transcript,
    to_jsonl,
)
from .visibility import (
    BoardVisibilityPolicy,
    Hidden,
    Public,
    Seats,
    Visibility,
    ZoneVisibilityPolicy,
    derive_seat_view,
    sorted_canonically,
    visibility_from_json,
)

__all__ = [
    "AgentEnvironment",
    "Bag",
    "BoardVisibilityPolicy",
    "Episode",
    "EpisodeOver",
    "Hidden",
    "HexGrid",
    "OpenInformationRequired",
    "Public",
    "Scenario",
    "SearchTooLarge",
    "Seats",
    "Solution",
    "SquareGrid",
    "StepResult",
    "SubmittedAction",
    "TranscriptMismatch",
    "TurnReducer",
    "TurnView",
    "Visibility",
    "ZoneVisibilityPolicy",
    "active_seat_of",
    "assert_no_information_leak",
    "canonical_json",
    "create_information_revelation",
    "defines_view_for",
    "derive_seat_view",
    "field_cells",
    "first_difference",
    "fov_predicate",
    "from_jsonl",
    "full_transcript",
    "is_terminal_of",
    "line_of_sight",
    "observation",
    "observation_stream",
    "play",
    "recheck_transcript",
    "results_of",
    "seat_results_of",
    "seat_transcript",
    "seat_view",
    "sight_lines",
    "solve_level",
    "sorted_canonically",
    "to_jsonl",
    "visibility_from_json",
]
