"""The Sudoku Explainer rating (SPEC 5.4), compiled: the same path, hints and ER/EP/ED as
``solver.reference.se``, hundreds of times faster.

The loop runs in numba over the compiled rules of ``solver.compiled.se_rules``, asked in the
order of the reference's ``RULES``. When the next rule to ask is a chain rule, the loop returns
and ``chain_hint`` asks the chain implementation for that rule (``solver.compiled.se_chains``
when it is there, else the reference's rule on a ``Grid``); then the loop goes on, from the next
rule if the chain rule found nothing, from the first after a hint.

``max_work`` bounds the chains' work over a rating (candidates their searches take off their
queues, each once a search: ``se_chains``' count): it is passed to the compiled chains, which
stop when it is spent; the reference's chains, the fallback, take no budget. A rating over
budget stops there, with ER, EP and ED None.

Nothing compiles on import: the first rating compiles the rules (about a minute; cached on
disk by ``solver.jit``).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
from collections import Counter
from collections.abc import Iterator
from typing import NamedTuple

import numpy as np

from solver.compiled.se_board import BOARD, apply_hint, from_puzzle, is_solved, place, to_grid
from solver.compiled.se_rules import (
    I_CELL,
    I_CODE,
    I_DEGREE,
    I_DIGIT,
    I_SET,
    I_SET_SIZE,
    I_TYPE,
    IS_CHAIN,
    RULE_COUNT,
    HintOut,
    Scratch,
    hint_of,
    hint_out,
    rule_hint,
    scratch,
    technique_name,
)
from solver.jit import compiled
from solver.reference.se import NO_HINT, RULES, SERating
from solver.reference.se_grid import Hint, rounded

# The reference's record takes the budget's fields once it has them (work, over_budget).
_RECORD_FIELDS = frozenset(f.name for f in dataclasses.fields(SERating))

# What ``advance`` stopped on.
SOLVED, CHAIN, STUCK, LOG_FULL = 0, 1, 2, 3

LOG_SIZE = 800  # more than the steps of any path: each step removes or places a candidate


class Log(NamedTuple):
    """The steps ``advance`` took: each hint's info fields and difficulty."""

    infos: np.ndarray  # (n, INFO_SIZE) int32
    difficulties: np.ndarray  # (n,) float64


class Work(NamedTuple):
    """A rating's arrays, allocated once."""

    scratch: Scratch
    out: HintOut
    log: Log


def work(log_size: int = LOG_SIZE) -> Work:
    out = hint_out()
    return Work(scratch(), out, Log(np.zeros((log_size, out.info.shape[0]), np.int32),
                                    np.zeros(log_size, np.float64)))


@compiled(borrows=True)
def apply_out(board, values, cands, out):
    """Apply a compiled hint: its removals, then its placement (SE's order)."""
    for c in range(81):
        cands[c] &= ~out.removals[c]
    if out.info[I_CELL] >= 0:
        place(values, cands, out.info[I_CELL], out.info[I_DIGIT], board)


@compiled
def advance(board, values, cands, scratch, out, log, start_rule):
    """Apply the first hint of the first rule that has one, again and again, from rule
    ``start_rule`` the first time and from rule 0 after, logging each step: until the grid is
    solved, a chain rule is next (returned), no rule applies or the log is full. Returns (what
    it stopped on, the chain rule, the steps logged)."""
    steps = 0
    rule = start_rule
    while not is_solved(values):
        if steps == log.difficulties.shape[0]:
            return LOG_FULL, 0, steps
        found = False
        while rule < RULE_COUNT:
            if IS_CHAIN[rule]:
                return CHAIN, rule, steps
            if rule_hint(rule, board, values, cands, scratch, out):
                found = True
                break
            rule += 1
        if not found:
            return STUCK, rule, steps
        log.infos[steps, :] = out.info
        log.difficulties[steps] = out.difficulty[0]
        apply_out(board, values, cands, out)
        steps += 1
        rule = 0
    return SOLVED, 0, steps


# -- the chains ------------------------------------------------------------------------------------


class ChainAnswer(NamedTuple):
    hint: Hint | None
    work: int
    over_budget: bool


@functools.cache
def _compiled_chains():
    """``solver.compiled.se_chains`` when it is there (built apart from this module)."""
    try:
        return importlib.import_module("solver.compiled.se_chains")
    except ModuleNotFoundError as error:
        if error.name != "solver.compiled.se_chains":
            raise
        return None


def chain_hint(rule: int, values: np.ndarray, cands: np.ndarray,
               max_work: int | None) -> ChainAnswer:
    """The first hint of the chain rule ``RULES[rule]`` on the grid, with the work it took:
    the compiled chains' (``chain_rule_search``, stopped past ``max_work``; or the agreed
    minimal ``chain_rule_hint``, work not counted) when there, else the reference rule's (work
    not counted)."""
    chains = _compiled_chains()
    if hasattr(chains, "chain_rule_search"):
        found = chains.chain_rule_search(rule, values, cands, max_work)
        return ChainAnswer(found.hint, found.work, found.over_budget)
    if hasattr(chains, "chain_rule_hint"):
        return ChainAnswer(chains.chain_rule_hint(rule, values, cands), 0, False)
    return ChainAnswer(next(iter(RULES[rule](to_grid(values, cands))), None), 0, False)


# -- the rating and the path -----------------------------------------------------------------------


class _Rating:
    """ER, EP, ED and the techniques as steps are applied (``solver.reference.se.se_rating``'s
    arithmetic): the steps ``advance`` logged, folded by ``tally``, and the chain hints."""

    def __init__(self) -> None:
        self.numbers = np.zeros(3, np.float64)  # ER, EP, ED so far
        self.kinds = np.zeros((LOG_SIZE, 3), np.int64)  # tally's table
        self.techniques: Counter[str] = Counter()
        self.steps = 0

    def step(self, technique: str, difficulty: float, places: bool) -> None:
        self.steps += 1
        self.techniques[technique] += 1
        er, ep, ed = self.numbers
        er = max(er, difficulty)
        if ep == 0.0:
            if ed == 0.0:
                ed = er
            if places:
                ep = er
        self.numbers[:] = er, ep, ed

    def logged(self, log: Log, steps: int) -> None:
        self.steps += steps
        for key, count, first in self.kinds[:tally(log, steps, self.numbers, self.kinds)]:
            self.techniques[_name(int(key), tuple(log.infos[first]))] += int(count)

    def record(self, solved: bool, work: int, over_budget: bool) -> SERating:
        er, ep, ed = (float(x) for x in self.numbers)
        numbers = (None, None, None) if over_budget else (
            rounded(er if solved else NO_HINT), rounded(ep), rounded(ed))
        budget = {"work": work, "over_budget": over_budget}
        return SERating(*numbers, dict(self.techniques), self.steps, solved and not over_budget,
                        **{k: v for k, v in budget.items() if k in _RECORD_FIELDS})


@compiled
def tally(log, steps, numbers, kinds):
    """Fold the logged steps into ``numbers`` (ER, EP, ED, as ``_Rating.step``) and count their
    techniques in ``kinds`` (name key, count, first step), in order of first use; returns how
    many techniques."""
    er, ep, ed = numbers[0], numbers[1], numbers[2]
    n = 0
    for i in range(steps):
        er = max(er, log.difficulties[i])
        if ep == 0.0:
            if ed == 0.0:
                ed = er
            if log.infos[i, I_CELL] >= 0:
                ep = er
        key = 0
        for j in range(NAME_FIELDS.shape[0]):
            key += log.infos[i, NAME_FIELDS[j]] * NAME_WEIGHTS[j]
        k = 0
        while k < n and kinds[k, 0] != key:
            k += 1
        if k == n:
            kinds[n, 0], kinds[n, 1], kinds[n, 2] = key, 0, i
            n += 1
        kinds[k, 1] += 1
    numbers[0], numbers[1], numbers[2] = er, ep, ed
    return n


# The info fields a technique's name depends on, folded into one key.
NAME_FIELDS = np.array([I_CODE, I_DEGREE, I_TYPE, I_SET, I_SET_SIZE], dtype=np.int64)
NAME_WEIGHTS = np.array([1, 1 << 8, 1 << 16, 1 << 24, 1 << 32], dtype=np.int64)
_NAMES: dict[int, str] = {}


def _name(key: int, info: tuple) -> str:
    name = _NAMES.get(key)
    if name is None:
        name = _NAMES[key] = technique_name(info)
    return name


def se_rating(puzzle: str, max_work: int | None = None) -> SERating:
    """The reference's ``se_rating`` of ``puzzle``, compiled (see the module docstring for
    ``max_work``)."""
    values, cands = from_puzzle(puzzle)
    arrays = work()
    rating = _Rating()
    spent = 0
    rule = 0
    while True:
        status, chain_rule, steps = advance(BOARD, values, cands, arrays.scratch, arrays.out,
                                            arrays.log, rule)
        rating.logged(arrays.log, steps)
        if status != CHAIN:
            if status == LOG_FULL:
                rule = 0
                continue
            return rating.record(status == SOLVED, spent, False)
        budget = None if max_work is None else max_work - spent
        answer = chain_hint(chain_rule, values, cands, budget)
        spent += answer.work
        if answer.over_budget:
            return rating.record(False, spent, True)
        if answer.hint is None:
            rule = chain_rule + 1
            continue
        hint = answer.hint
        rating.step(hint.technique, hint.difficulty, hint.placement is not None)
        apply_hint(hint, values, cands)
        rule = 0


def se_path(puzzle: str) -> Iterator[Hint]:
    """The hints serate applies to ``puzzle``, in order, as the reference's ``se_path`` yields
    them (each applied before it is yielded)."""
    values, cands = from_puzzle(puzzle)
    arrays = work(1)
    rule = 0
    while True:
        status, chain_rule, steps = advance(BOARD, values, cands, arrays.scratch, arrays.out,
                                            arrays.log, rule)
        if steps:
            yield hint_of(arrays.out)
        if status in (SOLVED, STUCK):
            return
        rule = 0
        if status == CHAIN:
            hint = chain_hint(chain_rule, values, cands, None).hint
            if hint is None:
                rule = chain_rule + 1
                continue
            apply_hint(hint, values, cands)
            yield hint


def next_hint(values: np.ndarray, cands: np.ndarray, rule: int = 0) -> Hint | None:
    """The first hint of the compiled rule ``RULES[rule]`` on a state (None if it has none);
    for the tests and tools that compare rules one by one."""
    arrays = work(1)
    if IS_CHAIN[rule]:
        raise ValueError(f"rule {rule} is a chain rule: not compiled here")
    if not rule_hint(rule, BOARD, values, cands, arrays.scratch, arrays.out):
        return None
    return hint_of(arrays.out)
