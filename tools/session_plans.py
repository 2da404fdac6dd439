"""The teaching page's session plans, checked against the lessons they plan (issue 25).

Each chapter's section of ``book/teaching.md`` has a **50 minutes.** and a **90 minutes.** plan, and a
lesson with exercises a third, **90 minutes, discussing.**, for a class that discusses each result
and works one exercise in pairs: a list
of items ``- N min: ...`` that name the lesson's sections by their labels (``{ref}`rank-toy```) and its
exercises by theirs, optionally followed by a line ``Set as reading: ...`` naming sections left out of
class. A plan is sound when

* its items' minutes add up to the session (50 or 90);
* every labelled section of the lesson is named by the plan (items or reading), itself or through a
  section that contains it: nothing in the lesson is silently skipped;
* every item gives the sections and exercises it names at least one minute per ``WORDS_PER_MINUTE``
  words of their prose (an exercise's statement, not its solution), as measured by ``tools/lessons.py``,
  plus ``MINUTES_PER_CELL`` for each output the section shows besides prose (a visible code cell's
  table, figure or printout, a ``paper.py`` listing, a Markdown table, a block of displayed maths);
  plus ``MINUTES_PER_EXERCISE`` of working time for each exercise the item names;
  a section named inside a larger named one is counted once, by the item that names it;
* it names only labels of its own lesson;
* the discussing plan gives every item ``DISCUSSION_FACTOR`` times that floor, names the 50-minute plan's
  sections and exactly one exercise (not zero, not two), in the one item that says "in pairs", and its section
  carries a line ``**Two 50-minute sessions.** Items 1 to k (N min), then items k+1 to n (M min)`` that adds up
  and leaves ``SLACK`` minutes of each 50 spare: N and M at most 45, M counting ``START_MINUTES`` to restart
  Binder and "Run all" (or says that no split fits, and no cut of one item at a section boundary inside it,
  each part at ``DISCUSSION_FACTOR`` times its own floor, would fit two sessions either);
* no section the discussing plan sets as reading would fit as one more item at that pace, both within its
  90 minutes and within two 50-minute sessions (the page says none does);
* a lesson with exercises has a ``**Reading check.**`` line that names every section the 50-minute and
  discussing plans set as reading, with the exercises that grade them or "no exercise grades ...; set one
  question: ..."; it says "None needed" only when those plans set no reading;
* every plan's first item covers the lesson's opening: the prose above its first label, without the
  learning-objectives box and the prerequisites (``Tree.opening_words``);
* a plan that runs the notebook (an item says "Run all" or "in Binder") starts it in its first item, which
  says "Run all" and gets ``START_MINUTES`` beyond its floor for Binder's start and the run.

Usage: ``.venv/bin/python tools/session_plans.py`` prints every plan's items with their minutes and the
words they cover, and the problems found; ``tests/test_publishing.py`` requires that there be none.
"""

from __future__ import annotations

import itertools
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import lessons  # noqa: E402

ROOT = lessons.ROOT
WORDS_PER_MINUTE = 80  # a judgement, not measured: a class reads and discusses prose no faster (100 was not teachable)
MINUTES_PER_CELL = 1  # and looks at each visible cell's output (a table, a figure) for at least this long
READING_WORDS_PER_MINUTE = 150  # a student reading a section alone, before or after class (printed, not checked)
MINUTES_PER_EXERCISE = 5  # and works an in-class exercise for at least this long, beyond reading its statement
# a judgement, not measured: a class that discusses each result (statistics, pairs) is planned at this many floors
DISCUSSION_FACTOR = 2  # the plan: each discussing item at this many floors, not "up to"
START_MINUTES = 3  # Binder's start and "Run all": added to the first item of a plan that runs the notebook
SLACK = 5  # spare minutes every 50-minute session of a two-session split keeps beyond its items
DISCUSSING = "90, discussing"  # the key of the discussion-pace plan: 90 minutes, every floor doubled
SESSIONS = {"**50 minutes.**": 50, "**90 minutes.**": 90, "**90 minutes, discussing.**": DISCUSSING}
LENGTH = {50: 50, 90: 90, DISCUSSING: 90}
PACE = {50: 1, 90: 1, DISCUSSING: DISCUSSION_FACTOR}
LABEL = re.compile(r"^\(([\w-]+)\)=$")
REF = re.compile(r"\{ref\}`(?:[^`<]*<)?([\w-]+)>?`")
ITEM = re.compile(r"^- (\d+) min\b")


@dataclass
class Section:
    label: str
    title: str
    level: int
    own_words: int  # prose words between its heading and the next heading of any level
    own_cells: int = 0  # outputs there besides prose: visible code cells, listings, tables, maths blocks
    children: list[str] = field(default_factory=list)
    parent: str | None = None


def _words(lines: list[str]) -> int:
    text = lessons._strip_inline("\n".join(lessons._prose_lines("\n".join(lines))))
    return len(lessons.WORD.findall(text))


def _visible_cells(lines: list[str]) -> int:
    """Outputs in ``lines`` a class must look at, besides prose: each code cell the page shows (a hidden one
    carries ``:tags: [remove-cell]``), each ``literalinclude`` listing, each Markdown table and each block
    of displayed maths (``$$``)."""
    count, in_table, in_math = 0, False, False
    for i, line in enumerate(lines):
        if re.match(r"^`{3,}\{code-cell\}", line):
            head = lines[i + 1:i + 4]
            count += not any(re.match(r"^:tags:.*remove-cell", h) for h in head)
        elif re.match(r"^`{3,}\{literalinclude\}", line):
            count += 1
        elif line.strip() == "$$":
            count += not in_math  # a block opens
            in_math = not in_math
        starts_table = line.startswith("|") and not in_table
        count += starts_table
        in_table = line.startswith("|")
    return count


class Tree(dict):
    """A lesson's labelled sections by label, with the prose words and outputs above its first label (the
    objectives, the prerequisites and, where it has no label, the opening question): every plan's first
    item covers them."""

    opening_words: int = 0
    opening_cells: int = 0


def sections(chapter: str) -> Tree:
    """The labelled headings of ``book/<chapter>.md`` (a ``(label)=`` line right above the heading)."""
    lines = (ROOT / "book" / f"{chapter}.md").read_text().split("\n")
    heads, fence = [], None
    for i, line in enumerate(lines):
        opening = re.match(r"^(`{3,}|:{3,})", line)
        if opening:
            if fence is None and line.strip() != opening.group(1):
                fence = opening.group(1)
            elif fence is not None and line.strip() == fence:
                fence = None
            continue
        heading = re.match(r"^(#+) (.*)$", line)
        if heading and fence is None:
            label = LABEL.match(lines[i - 1]) if i else None
            heads.append((i, len(heading.group(1)), label.group(1) if label else None, heading.group(2)))
    found = Tree()
    first = next((i - 1 for i, _, label, _ in heads if label is not None), len(lines))
    body = next((i for i, line in enumerate(lines) if i and line.strip() == "---"), 0) + 1  # after front matter
    opening = _opening(lines[body:first])
    found.opening_words, found.opening_cells = _words(opening), _visible_cells(opening)
    stack: list[tuple[int, str | None]] = []  # (level, label) of the enclosing headings
    for k, (i, level, label, title) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        while stack and stack[-1][0] >= level:
            stack.pop()
        parent = stack[-1][1] if stack else None
        owner = next((lab for _lev, lab in reversed(stack) if lab is not None), None)
        stack.append((level, label))
        if label is None:  # an unlabelled subsection: its prose and outputs count in its nearest labelled section
            if owner in found:
                found[owner].own_words += _words(lines[i:end])
                found[owner].own_cells += _visible_cells(lines[i:end])
            continue
        found[label] = Section(label, title, level, _words(lines[i:end]), _visible_cells(lines[i:end]), parent=parent)
        if parent in found:
            found[parent].children.append(label)
    return found


def _opening(lines: list[str]) -> list[str]:
    """The lines above a lesson's first label without its learning-objectives box and its prerequisites
    paragraph (read before class, not taught): its opening question where that has no label."""
    kept, skip = [], None
    for line in lines:
        if skip is None and re.match(r"^`{3,}\{admonition\}", line):
            skip = re.match(r"^`{3,}", line).group(0)
        elif skip is None and line.startswith("**Prerequisites.**"):
            skip = ""
        elif skip is not None:
            if (skip and line.strip() == skip) or (not skip and not line.strip()):
                skip = None
        else:
            kept.append(line)
    return kept


def exercise_labels(chapter: str) -> set[str]:
    text = (ROOT / "book" / f"{chapter}.md").read_text()
    return set(re.findall(r"```+\{exercise\}[^\n]*\n(?::[^\n]*\n)*?:label: ([\w-]+)", text))


def exercise_words(chapter: str) -> dict[str, int]:
    """The prose words of each exercise's statement (its solution not counted)."""
    text = (ROOT / "book" / f"{chapter}.md").read_text()
    found = {}
    for _fence, body in re.findall(r"^(`{3,})\{exercise\}[^\n]*\n(.*?)^\1$", text, flags=re.M | re.S):
        label = re.search(r"^:label: ([\w-]+)", body, flags=re.M)
        if label:
            found[label.group(1)] = _words(body.split("\n"))
    return found


@dataclass
class Plan:
    minutes: int  # the session's length
    items: list[tuple[int, list[str], str]]  # (minutes, labels named, text)
    reading: list[str]  # labels set as reading


def plans(block: str) -> dict[int | str, Plan]:
    """The plans (50, 90 and 90 minutes discussing) of one chapter's section of the teaching page."""
    found = {}
    for marker, session in SESSIONS.items():
        if marker not in block:
            continue
        body = block.split(marker, 1)[1]
        body = re.split(r"^\*\*[^*\n]+\.\*\*", body, maxsplit=1, flags=re.M)[0]  # up to the next bold key
        items, reading, current, in_reading = [], [], None, False
        for line in body.splitlines():
            match = ITEM.match(line)
            if match:
                current, in_reading = [int(match.group(1)), line], False
                items.append(current)
            elif line.startswith("Set as reading"):
                current, in_reading = None, True
                reading += REF.findall(line)
            elif in_reading and line.strip():  # the reading list goes on over its continuation lines
                reading += REF.findall(line)
            elif current is not None and line.strip() and not line.startswith("- "):
                current[1] += " " + line.strip()
            else:
                current, in_reading = None, False
        found[session] = Plan(session, [(m, REF.findall(text), text) for m, text in items], reading)
    return found


def covered_words(plan: Plan, tree: dict[str, Section], exercises: dict[str, int],
                  attr: str = "own_words") -> list[int]:
    """Per item, the prose words (``attr="own_cells"``: the visible code cells) of what it names.

    A sub-section named elsewhere in the plan is counted there, not twice. Exercises have no cells.
    """
    named = {label for _, labels, _ in plan.items for label in labels} | set(plan.reading)

    def count(label: str) -> int:
        section = tree[label]
        return getattr(section, attr) + sum(count(child) for child in section.children if child not in named)

    own = (lambda label: exercises.get(label, 0)) if attr == "own_words" else (lambda label: 0)
    found = [sum(count(label) if label in tree else own(label) for label in labels) for _, labels, _ in plan.items]
    if found:  # the first item covers what stands above the lesson's first label (the opening question)
        found[0] += getattr(tree, "opening_words" if attr == "own_words" else "opening_cells", 0)
    return found


def floor_minutes(words: int, cells: int, exercises: int = 0) -> int:
    """The fewest minutes an item may give: its prose at ``WORDS_PER_MINUTE``, its outputs, its exercises' work."""
    return -(-words // WORDS_PER_MINUTE) + MINUTES_PER_CELL * cells + MINUTES_PER_EXERCISE * exercises


def starts_notebook(plan: Plan) -> bool:
    """Whether the plan runs the notebook: an item says "Run all" or sends the class "in Binder"."""
    return any("Run all" in text or "in Binder" in text for _, _, text in plan.items)


def start_minutes(plan: Plan, index: int) -> int:
    """``START_MINUTES`` for a notebook-running plan's first item (Binder's start and "Run all"), else 0."""
    return START_MINUTES if index == 0 and starts_notebook(plan) else 0


def discussion_minutes(plan: Plan, tree: dict[str, Section], exercises: dict[str, int],
                       labels: set[str]) -> int:
    """The discussion-pace plan's length: ``plan``'s items, each at ``DISCUSSION_FACTOR`` times its floor
    (or its own minutes if more). The teaching page offers the 50-minute plan so in a 90-minute class."""
    covered = covered_words(plan, tree, exercises)
    cells = covered_words(plan, tree, exercises, attr="own_cells")
    return sum(max(minutes, DISCUSSION_FACTOR * floor_minutes(words, n, sum(lab in labels for lab in named)))
               for (minutes, named, _), words, n in zip(plan.items, covered, cells, strict=True))


def _covered(label: str, tree: dict[str, Section], named: set[str]) -> bool:
    """A section is in a plan when it is named, or a section containing it is, or all of its sub-sections are."""
    up = label
    while up is not None:
        if up in named:
            return True
        up = tree[up].parent if up in tree else None
    children = tree[label].children
    return bool(children) and all(_covered(child, tree, named) for child in children)


def problems(chapter: str, block: str) -> list[str]:
    """What is wrong with the plans of ``chapter`` (empty when they are sound)."""
    tree, exercises, found = sections(chapter), exercise_labels(chapter), []
    plan_by_session = plans(block)
    for session in SESSIONS.values():
        plan = plan_by_session.get(session)
        if session == DISCUSSING and not exercises:
            continue  # a lesson without exercises has nothing to work in pairs
        if plan is None or not plan.items:
            found.append(f"{chapter}: no {session}-minute plan of '- N min: ...' items")
            continue
        total = sum(m for m, _, _ in plan.items)
        if total != LENGTH[session]:
            found.append(f"{chapter}, {session} min: the items add up to {total} min")
        named_exercises = {label for _, labels, _ in plan.items for label in labels} & exercises
        if session == DISCUSSING and not named_exercises:
            found.append(f"{chapter}, {session} min: no exercise is worked in class")
        if session == DISCUSSING:
            found += _discussing_problems(chapter, plan, plan_by_session.get(50), tree, exercises, block)
        named = {label for _, labels, _ in plan.items for label in labels} | set(plan.reading)
        for label in sorted(named - set(tree) - exercises):
            found.append(f"{chapter}, {session} min: {label!r} is neither a section nor an exercise of {chapter}")
        for label, section in tree.items():
            if not _covered(label, tree, named):
                found.append(f"{chapter}, {session} min: section {label!r} ({section.title!r}) is not in the plan")
        if starts_notebook(plan) and "Run all" not in plan.items[0][2]:
            found.append(f"{chapter}, {session} min: the plan runs the notebook, but its first item does not "
                         f"start Binder and 'Run all'")
        covered = covered_words(plan, tree, exercise_words(chapter))
        cells = covered_words(plan, tree, exercise_words(chapter), attr="own_cells")
        for i, ((minutes, labels, text), words, n_cells) in enumerate(zip(plan.items, covered, cells, strict=True)):
            n_ex = sum(label in exercises for label in labels)
            least = PACE[session] * floor_minutes(words, n_cells, n_ex) + start_minutes(plan, i)
            if minutes < least:
                found.append(f"{chapter}, {session} min: {minutes} min for {words} words of prose, {n_cells} "
                             f"outputs and {n_ex} exercises (at least {least} min): {text[:70]}...")
    found += _reading_check_problems(chapter, block, exercises, plan_by_session.get(50),
                                    plan_by_session.get(DISCUSSING))
    if 50 in plan_by_session and plan_by_session[50].items:
        slow = discussion_minutes(plan_by_session[50], tree, exercise_words(chapter), exercises)
        spare = 90 - DISCUSSION_FACTOR * (MINUTES_PER_EXERCISE + 1)  # one short exercise at that pace still fits
        if slow > spare:
            found.append(f"{chapter}: the 50-minute plan at discussion pace takes {slow} min, more than the "
                         f"{spare} min a 90-minute class has beside one exercise")
    return found


READING_CHECK = re.compile(r"^\*\*Reading check\.\*\*(.*)$", flags=re.M)


def _reading_check_problems(chapter: str, block: str, exercises: set[str], fifty: Plan | None,
                            discussing: Plan | None = None) -> list[str]:
    """A lesson with exercises has a '**Reading check.**' line. It says 'None needed' only when neither the
    50-minute nor the discussing plan sets any reading; otherwise it names every section those plans set as
    reading, and names the exercises that grade them or says "no exercise grades ...; set one question: ...".
    """
    if not exercises:
        return []
    said = READING_CHECK.search(block)
    if said is None:
        return [f"{chapter}: no '**Reading check.**' line"]
    line = said.group(1).lower()
    reading = [label for plan in (fifty, discussing) if plan is not None for label in plan.reading]
    if "none needed" in line:
        return [f"{chapter}: the reading check says 'None needed', but the plans set {sorted(set(reading))} "
                f"as reading"] if reading else []
    if not reading:
        return [f"{chapter}: a reading check, but the 50-minute and discussing plans set no reading"]
    found, named = [], set(REF.findall(said.group(1)))
    for label in sorted(set(reading) - named):
        found.append(f"{chapter}: the reading check does not say what grades the reading {label!r}")
    if not named & exercises and "no exercise grades" not in line:
        found.append(f"{chapter}: the reading check names no exercise of the lesson and no question")
    if "no exercise grades" in line and "set one question:" not in line:
        found.append(f"{chapter}: the reading check says 'no exercise grades' without 'set one question:'")
    return found


def two_sessions(plan: Plan) -> tuple[int, int, int] | None:
    """Where the discussing plan splits into two 50-minute sessions: (items in session 1, its minutes, the
    second's minutes), the first session as full as fits; None when no split leaves both within
    ``50 - SLACK``. The second's minutes count ``START_MINUTES`` to restart Binder and "Run all". The
    plan's last item, when it names nothing, is the reserve (questions): it is left out and each session
    gives its spare minutes to questions."""
    minutes, cap = [m for m, _, _ in _taught(plan)], 50 - SLACK
    for k in range(len(minutes) - 1, 0, -1):
        first, second = sum(minutes[:k]), START_MINUTES + sum(minutes[k:])
        if first <= cap and second <= cap:
            return k, first, second
    return None


def sessions_split(plan: Plan, count: int) -> list[tuple[int, int, int]] | None:
    """The discussing plan's items in ``count`` 50-minute sessions: per session (first item, last item, its
    minutes), numbered from 1, each within ``50 - SLACK`` (every session after the first counts
    ``START_MINUTES`` to restart Binder and "Run all"), the earlier sessions as full as fits; None if none fits."""
    minutes, cap = [m for m, _, _ in _taught(plan)], 50 - SLACK
    best = None
    for cuts in itertools.combinations(range(1, len(minutes)), count - 1):
        bounds = (0, *cuts, len(minutes))
        split = [(a + 1, b, sum(minutes[a:b]) + (START_MINUTES if a else 0))
                 for a, b in itertools.pairwise(bounds)]
        if all(m <= cap for _, _, m in split) and (best is None or cuts > best[0]):
            best = (cuts, split)
    return best[1] if best else None


def _taught(plan: Plan) -> list[tuple[int, list[str], str]]:
    """The plan's items without its last one when that names nothing (the questions, the reserve)."""
    return plan.items[:-1] if plan.items and not plan.items[-1][1] else plan.items


def _leaves(label: str, tree: dict[str, Section], named: set[str]) -> list[str]:
    """A named section and its sub-sections the plan does not name, in order: the points an item may be cut at."""
    return [label] + [leaf for child in tree[label].children if child not in named
                      for leaf in _leaves(child, tree, named)] if label in tree else [label]


def section_split(plan: Plan, tree: Tree, exercises: dict[str, int]) -> tuple[int, int] | None:
    """A split into two 50-minute sessions that cuts one item at a section boundary inside it, each part at
    ``DISCUSSION_FACTOR`` times its own floor (rounded up on its own): (session 1's minutes, session 2's,
    counting ``START_MINUTES``), the first as full as fits; None when no such cut leaves both within
    ``50 - SLACK``."""
    named = {label for _, labels, _ in plan.items for label in labels} | set(plan.reading)
    taught, best = _taught(plan), None

    def part(leaves: list[str], first: bool) -> int:
        words = sum(tree[x].own_words if x in tree else exercises.get(x, 0) for x in leaves)
        cells = sum(tree[x].own_cells for x in leaves if x in tree)
        if first:
            words, cells = words + tree.opening_words, cells + tree.opening_cells
        n_ex = sum(x in exercises for x in leaves)
        return DISCUSSION_FACTOR * floor_minutes(words, cells, n_ex) + (start_minutes(plan, 0) if first else 0)

    for i, (_, labels, _) in enumerate(taught):
        leaves = [leaf for label in labels for leaf in _leaves(label, tree, named)]
        for cut in range(1, len(leaves)):
            first = sum(m for m, _, _ in taught[:i]) + part(leaves[:cut], i == 0)
            second = START_MINUTES + part(leaves[cut:], False) + sum(m for m, _, _ in taught[i + 1:])
            if max(first, second) <= 50 - SLACK and (best is None or first > best[0]):
                best = (first, second)
    return best


def reading_that_fits(plan: Plan, tree: Tree, exercises: dict[str, int], labels: set[str],
                      two: bool = True) -> list[str]:
    """The sections ``plan`` sets as reading that would fit as one more item, at ``DISCUSSION_FACTOR`` times its
    floor, after its taught items but the last (the conclusions) or after all (each cut to its floor): within
    the 90 minutes and (``two``) within two 50-minute sessions of ``50 - SLACK`` minutes, the second counting
    ``START_MINUTES``."""
    taught, named = _taught(plan), {label for _, labels_, _ in plan.items for label in labels_} | set(plan.reading)
    covered = covered_words(plan, tree, exercises)[:len(taught)]
    cells = covered_words(plan, tree, exercises, attr="own_cells")[:len(taught)]
    floors = [DISCUSSION_FACTOR * floor_minutes(w, n, sum(x in labels for x in names)) + start_minutes(plan, i)
              for i, ((_, names, _), w, n) in enumerate(zip(taught, covered, cells, strict=True))]
    found = []
    for label in plan.reading:
        if label not in tree:
            continue
        extra = DISCUSSION_FACTOR * floor_minutes(_subtree(tree, label, "own_words", named),
                                                  _subtree(tree, label, "own_cells", named))
        for at in (len(floors) - 1, len(floors)):  # after the method, before or after the conclusions
            minutes = [*floors[:at], extra, *floors[at:]]
            if sum(minutes) <= 90 and (not two or any(sum(minutes[:k]) <= 50 - SLACK >= START_MINUTES
                                                      + sum(minutes[k:]) for k in range(1, len(minutes)))):
                found.append(label)
                break
    return found


THREE = re.compile(r"\*\*Three 50-minute sessions\.\*\* ((?:Items 1 to \d+|Item 1) \(\d+ min\)"
                   r"(?:, then (?:items \d+ to \d+|item \d+) \(\d+ min\)){2})")
TWO = re.compile(r"\*\*Two 50-minute sessions\.\*\* Items 1 to (\d+) \((\d+) min\), "
                 r"then items (\d+) to (\d+) \((\d+) min\)")


def _discussing_problems(chapter: str, plan: Plan, fifty: Plan | None, tree: dict[str, Section],
                         exercises: set[str], block: str) -> list[str]:
    """What the page says of every discussing plan: the 50-minute plan's sections, exactly one exercise,
    worked in pairs, and a written-out split into two 50-minute sessions that each fit."""
    found, where = [], f"{chapter}, {DISCUSSING} min"
    worked = [(label, text) for _, labels, text in plan.items for label in labels if label in exercises]
    if len(worked) > 1:
        found.append(f"{where}: {len(worked)} exercises are worked in class, not one")
    in_fifty = {label for _, labels, _ in fifty.items for label in labels} if fifty is not None else set()
    for label, text in worked:
        if "in pairs" not in text:
            found.append(f"{where}: exercise {label!r} is not worked 'in pairs'")
        if label not in in_fifty and "not in the 50-minute plan" not in text:
            found.append(f"{where}: exercise {label!r} is not in the 50-minute plan, and its item does not say so")
    pairs = [text for _, _, text in plan.items if "in pairs" in text]
    if not pairs:
        found.append(f"{where}: no item works an exercise 'in pairs'")
    if len(pairs) > 1:
        found.append(f"{where}: {len(pairs)} items work in pairs, not one")
    if fifty is not None:
        own = {label for _, labels, _ in plan.items for label in labels if label in tree}
        theirs = {label for _, labels, _ in fifty.items for label in labels if label in tree}
        if own != theirs:
            found.append(f"{where}: its sections differ from the 50-minute plan's: "
                         f"{sorted(own ^ theirs)}")
    for label in reading_that_fits(plan, tree, exercise_words(chapter), exercises):
        found.append(f"{where}: the reading {label!r} fits as one more item at discussion pace, in 90 minutes "
                     f"and in two 50-minute sessions: teach it")
    split, said = two_sessions(plan), TWO.search(block)
    if split is None:
        if "no split into two 50-minute sessions fits" not in block:
            found.append(f"{where}: no split into two 50-minute sessions fits, and the page does not say so")
        if (cut := section_split(plan, tree, exercise_words(chapter))) is not None:
            found.append(f"{where}: cutting one item at a section boundary fits two sessions ({cut[0]} min, "
                         f"then {cut[1]} min): plan them so")
        three, said3 = sessions_split(plan, 3), THREE.search(block)
        want = ", then ".join(f"items {a} to {b} ({m} min)" if b > a else f"item {a} ({m} min)"
                             for a, b, m in three or [])
        if three and (said3 is None or said3.group(1) != want[0].upper() + want[1:]):
            found.append(f"{where}: the page does not say '**Three 50-minute sessions.** "
                         f"{want[0].upper() + want[1:]}'")
    elif said is None:
        found.append(f"{where}: no '**Two 50-minute sessions.** Items 1 to k (N min), then items ...' line "
                     f"(the plan splits as items 1 to {split[0]} ({split[1]} min), then {split[0] + 1} to "
                     f"{len(_taught(plan))} ({split[2]} min))")
    else:
        k, first, last, n, second = (int(g) for g in said.groups())
        total = [m for m, _, _ in _taught(plan)]
        if (last != k + 1 or n != len(total) or first != sum(total[:k])
                or second != START_MINUTES + sum(total[k:]) or max(first, second) > 50 - SLACK):
            found.append(f"{where}: the page's two sessions (items 1 to {k}, {first} min; {last} to {n}, "
                         f"{second} min) are not the plan's, which splits as items 1 to {split[0]} "
                         f"({split[1]} min), then {split[0] + 1} to {len(total)} ({split[2]} min)")
    return found


def teaching_sections(text: str | None = None) -> dict[str, str]:
    """The teaching page's sections, keyed by the chapter their heading links with {doc}."""
    text = (ROOT / "book" / "teaching.md").read_text() if text is None else text
    found = {}
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        match = re.search(r"\{doc\}`([\w/]+)`", block.splitlines()[0])
        if match:
            found[match.group(1)] = block
    return found


def _subtree(tree: dict[str, Section], label: str, attr: str, named: set[str]) -> int:
    """A section's ``attr`` (words or outputs) with its sub-sections' that the plan does not name themselves."""
    return getattr(tree[label], attr) + sum(_subtree(tree, child, attr, named)
                                            for child in tree[label].children if child not in named)


def reading_alone(plan: Plan, tree: dict[str, Section]) -> tuple[int, int, int]:
    """The words and outputs a plan sets as reading, and the minutes a student takes over them alone."""
    named = {label for _, labels, _ in plan.items for label in labels} | set(plan.reading)
    words = sum(_subtree(tree, label, "own_words", named) for label in plan.reading if label in tree)
    outputs = sum(_subtree(tree, label, "own_cells", named) for label in plan.reading if label in tree)
    return words, outputs, -(-words // READING_WORDS_PER_MINUTE) + MINUTES_PER_CELL * outputs


def slots(minutes: int, length: int) -> int:
    """How many sessions of ``length`` minutes hold ``minutes`` of items: each after the first counts
    ``START_MINUTES`` to restart Binder and "Run all", and a 50-minute session keeps ``SLACK`` spare."""
    cap = length - SLACK if length == 50 else length
    return next(n for n in itertools.count(1) if minutes + START_MINUTES * (n - 1) <= cap * n)


def further_session(plan: Plan, tree: Tree) -> int:
    """The minutes of the further session the page advises after a discussing plan: each section it sets as
    reading at ``DISCUSSION_FACTOR`` times its own floor, plus ``START_MINUTES`` to start Binder and "Run all"."""
    named = {label for _, labels, _ in plan.items for label in labels} | set(plan.reading)
    return START_MINUTES + sum(DISCUSSION_FACTOR * floor_minutes(_subtree(tree, label, "own_words", named),
                                                                 _subtree(tree, label, "own_cells", named))
                               for label in plan.reading if label in tree)


def course_slots(chapter: str, block: str) -> tuple[int, int]:
    """A lesson's sessions at discussion pace, in 90- and in 50-minute slots: its discussing plan (two or three
    50-minute sessions) and the further session for its reading; a lesson without one, its 50-minute plan at
    discussion pace."""
    tree, by_session = sections(chapter), plans(block)
    plan = by_session.get(DISCUSSING)
    if plan is None:
        slow = discussion_minutes(by_session[50], tree, exercise_words(chapter), exercise_labels(chapter))
        return slots(slow, 90), slots(slow, 50)
    extra = further_session(plan, tree)
    split = sessions_split(plan, 2) or sessions_split(plan, 3) or []
    return 1 + slots(extra, 90), len(split) + slots(extra, 50)


NUMBER = {"one": 1, "two": 2, "three": 3}
FURTHER = re.compile(r"further session \((\d+) min; (one|two|three) 50-minute slots?\)")
COURSE = re.compile(r"^- \*\*[^(*]*\((\d+) sessions of 90 minutes, (\d+) of 50\):\*\*(.*?)(?=^- |^$)",
                    flags=re.M | re.S)
SLOTS_ROW = re.compile(r"^\| \{doc\}`([\w/]+)` \| (\d+) \| (\d+) \|$", flags=re.M)
FITS_90 = re.compile(r"fits as one more item only in 90 minutes[^.]*\.")


def course_problems(text: str | None = None) -> list[str]:
    """What the page says of the further sessions and the courses' lengths, and of the reading that fits in 90
    minutes only."""
    text = (ROOT / "book" / "teaching.md").read_text() if text is None else text
    blocks, found, fits = teaching_sections(text), [], []
    for chapter, block in blocks.items():
        plan = plans(block).get(DISCUSSING)
        if plan is None:
            continue
        tree = sections(chapter)
        fits += reading_that_fits(plan, tree, exercise_words(chapter), exercise_labels(chapter), two=False)
        minutes, said = further_session(plan, tree), FURTHER.search(block)
        want = f"further session ({minutes} min; {['one', 'two', 'three'][slots(minutes, 50) - 1]} 50-minute slot"
        if said is None or (int(said.group(1)), NUMBER[said.group(2)]) != (minutes, slots(minutes, 50)):
            found.append(f"{chapter}: the discussing plan's reading line does not say '{want}...)'")
    said = FITS_90.search(text)
    if said is None or set(REF.findall(said.group(0))) != set(fits):
        found.append(f"the page does not say 'fits as one more item only in 90 minutes: ...' naming {fits}")
    rows = {chapter: (int(n90), int(n50)) for chapter, n90, n50 in SLOTS_ROW.findall(text)}
    for chapter, block in blocks.items():
        want = course_slots(chapter, block)
        if rows.get(chapter) != want:
            found.append(f"the slots table's row for {chapter} is {rows.get(chapter)}; the plans give {want}")
    courses = COURSE.findall(text)
    if not courses:
        found.append("Suggested orders states no '(N sessions of 90 minutes, M of 50)'")
    for n90, n50, rest in courses:
        chapters = list(blocks) if "the lessons in order" in rest else re.findall(r"\{doc\}`([\w/]+)`", rest)
        want = [sum(x) for x in zip(*(course_slots(c, blocks[c]) for c in chapters), strict=True)]
        if [int(n90), int(n50)] != want:
            found.append(f"a course of {chapters} takes {want[0]} sessions of 90 minutes, {want[1]} of 50; "
                         f"the page says {n90} and {n50}")
    return found


READING_RANGE = re.compile(r"from (\d+) to (\d+)\s+minutes\s+of\s+reading\s+alone")


def page_problems(text: str | None = None) -> list[str]:
    """What the page says of all plans at once: the range of the 50-minute plans' reading, in minutes, the
    further sessions, the courses' lengths and the reading that fits in 90 minutes only."""
    text = (ROOT / "book" / "teaching.md").read_text() if text is None else text
    return _reading_range_problems(text) + course_problems(text)


def _reading_range_problems(text: str) -> list[str]:
    """The range of the 50-minute plans' reading, in minutes, as the page states it."""
    minutes = [reading_alone(plan, sections(chapter))[2] for chapter, block in teaching_sections(text).items()
               for session, plan in plans(block).items() if session == 50 and plan.reading]
    said = READING_RANGE.search(text)
    if said is None:
        return ["the page does not say 'from N to M minutes of reading alone'"]
    if (int(said.group(1)), int(said.group(2))) != (min(minutes), max(minutes)):
        return [f"the page says {said.group(0)!r}; the 50-minute plans' reading takes from {min(minutes)} "
                f"to {max(minutes)} minutes"]
    return []


def main() -> int:
    bad = []
    for chapter, block in teaching_sections().items():
        tree = sections(chapter)
        for session, plan in plans(block).items():
            print(f"{chapter}, {session} min")
            covered = covered_words(plan, tree, exercise_words(chapter))
            cells = covered_words(plan, tree, exercise_words(chapter), attr="own_cells")
            exercises, printed = exercise_labels(chapter), []
            for (minutes, labels, _), words, n in zip(plan.items, covered, cells, strict=True):
                n_ex = sum(label in exercises for label in labels)
                least = PACE[session] * floor_minutes(words, n, n_ex) + start_minutes(plan, len(printed))
                printed.append(least)
                print(f"  {minutes:3d} min  {words:5d} words {n:2d} outputs {n_ex} ex "
                      f"(floor {least:2d})  {', '.join(labels)}")
            if plan.reading:
                words, outputs, alone = reading_alone(plan, tree)
                print(f"  reading: {', '.join(plan.reading)} ({words} words, {outputs} outputs, "
                      f"about {alone} min alone)")
            if session == DISCUSSING and (split := sessions_split(plan, 2) or sessions_split(plan, 3)):
                print(f"  {len(split)} 50-minute sessions (each after the first with {START_MINUTES} min to "
                      f"restart): " + ", then ".join(f"items {a} to {b} ({m} min)" if b > a else f"item {a} ({m} min)"
                                                   for a, b, m in split))
            if session == DISCUSSING:
                extra = further_session(plan, tree)
                print(f"  further session for the reading (x{DISCUSSION_FACTOR} the floor): {extra} min, "
                      f"{slots(extra, 50)} 50-minute slot(s)")
            if session == 50:
                slow = discussion_minutes(plan, tree, exercise_words(chapter), exercises)
                print(f"  at discussion pace (x{DISCUSSION_FACTOR} the floor): {slow} min of a 90-minute class")
        n90, n50 = course_slots(chapter, block)
        print(f"  at discussion pace, with the further session: {n90} sessions of 90 minutes or {n50} of 50")
        bad += problems(chapter, block)
    bad += page_problems()
    print("\n".join(bad) or "every plan is sound")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
