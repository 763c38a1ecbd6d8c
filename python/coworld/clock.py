"""An episode's time limits: the play budget, a call's timeout, the worst ply
and the pace. Recorded in each replay's config; leagues and gates pass them on."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Clock:
    """The episode's time limits, recorded in the replay config."""

    play_budget_seconds: float = 900.0
    llm_timeout_seconds: float = 60.0
    worst_ply_seconds: float | None = None
    pace_seconds: float = 0.0
    #: A scripted seat's (or a fallback's) worst ply before it has played one: a
    #: baseline move in the core. Then the guard uses its slowest ply so far
    #: (a searching baseline such as mcts can take longer).
    scripted_ply_seconds: float = 0.1

    @property
    def worst_ply(self) -> float:
        """A Claude seat's worst ply. Unless set: one call and its one retry, each up
        to the timeout, plus a second."""
        if self.worst_ply_seconds is not None:
            return self.worst_ply_seconds
        return 2 * self.llm_timeout_seconds + 1.0

    def as_config(self) -> dict[str, float]:
        return {
            "playBudgetSeconds": self.play_budget_seconds,
            "llmTimeoutSeconds": self.llm_timeout_seconds,
            "worstPlySeconds": self.worst_ply,
            "scriptedPlySeconds": self.scripted_ply_seconds,
            "paceSeconds": self.pace_seconds,
        }
