"""Check the chapters in a real JupyterLab driven by headless Chromium (issue 15, items 1-4).

A developer tool, not part of the book or the test suite: it needs Playwright's Python package in
the venv (``.venv/bin/pip install playwright``; it is not in requirements.txt) and a Chromium binary
(``/usr/bin/chromium`` by default, ``--chromium`` to change it). It never runs ``playwright install``.

By default it starts JupyterLab the documented way, ``make lab``, with HOME set to a fresh empty
directory (so nothing from a user's own Jupyter settings helps), on a free port, and stops it at the
end. ``--url``/``--token`` check an already running JupyterLab instead.

Checks (``--checks``, default all; each prints PASS/FAIL lines with the evidence):

open
    Double-clicking ``book/recourse_basics.md`` in the file browser (the default viewer) opens a
    notebook (cells and a kernel session), not a text editor.
save
    Every page of the book (``book/**/*.md``): open it by double click, save it (Ctrl+S) without
    editing; its bytes (sha256) are unchanged.
run
    Every chapter with code cells: run all cells (Run > Run All Cells); no error or stderr output.
    Then, on the executed notebook:

    - explorer (item 1): every ``recourselab.viz.explorer`` on the page gets 5 control changes
      as a reader makes them (a slider dragged with the mouse by a fifth of its track, a dropdown's
      next option), the controls taken in turn; after each change the figure (the ``<img>`` in the
      explorer's output area) must be a PNG that is not fully transparent and not a single colour,
      with no traceback in the output area. Reports the number of distinct images.
    - effect (item 5): the figure differs from the one before each change (a control that changes
      nothing at that setting fails here, not under "explorer").
    - myst: the rendered markdown cells (jupyterlab-myst) show no raw book markup: ``{eval}`` roles
      not replaced by their values, ``{glue`` roles, ``:::`` fences, ```` ```{ ```` directives, and
      other ``{role}`` text; counts per kind and examples.
    - run-save: save the executed notebook; its bytes are unchanged (jupytext stores no outputs,
      and jupytext.toml filters jupyterlab-myst's ``user_expressions`` cell metadata).

Browser console errors (and uncaught page errors) are collected for every page opened and printed.

Other people may edit the pages while the checks run, so a check never overwrites their work: after
the open check, autosave is turned off (in the fresh HOME only), a page that changed on disk since it
was opened is not saved (SKIP), and a "File Changed" dialog is cancelled. When our own save changed
a page (a FAIL, with its diff), the saved version is kept in a temporary file and the page gets its
original bytes back, unless someone wrote it after our save.

Usage::

    .venv/bin/python tools/check_lab.py                                   # everything (15-25 min)
    .venv/bin/python tools/check_lab.py --checks open save                # about 2 min
    .venv/bin/python tools/check_lab.py --checks run --pages five_lenses  # one chapter executed
    .venv/bin/python tools/check_lab.py --url http://localhost:8899 --token abc

Exit status 0 when every check passes, 1 otherwise.
"""

from __future__ import annotations

import argparse
import base64
import difflib
import hashlib
import io
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BOOK = REPO / "book"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
CHANGES = 5  # control changes per explorer
# raw MyST markup that must not be visible in a rendered markdown cell, by kind
RAW_MARKUP = {
    "{eval} role": re.compile(r"\{eval\}`"),
    "{glue} role": re.compile(r"\{glue(:\w+)?\}`"),
    "other {role}`": re.compile(r"\{(?!eval\}|glue)[a-z][\w:-]*\}`"),
    ":::fence": re.compile(r"^\s*:::", re.M),
    "```{directive}": re.compile(r"```\{"),
    ":option: line": re.compile(r"^:(class|label|tags|name|icon|dropdown|nonumber|hidden):", re.M),
}


# ---------------------------------------------------------------------------------------------
# results


@dataclass
class Report:
    lines: list = field(default_factory=list)
    failed: int = 0

    def result(self, check: str, page: str, ok: bool | None, evidence: str) -> None:
        """Print one PASS/FAIL/SKIP line (``ok=None`` is a SKIP, which does not fail the run)."""
        word = "SKIP" if ok is None else ("PASS" if ok else "FAIL")
        self.failed += ok is False
        line = f"{word} {check:<10} {page:<28} {evidence}"
        self.lines.append(line)
        print(line, flush=True)

    def note(self, text: str) -> None:
        print("     " + text.replace("\n", "\n     "), flush=True)


# ---------------------------------------------------------------------------------------------
# the JupyterLab server


class Lab:
    """A JupyterLab server: started with ``make lab`` from a fresh HOME, or one already running."""

    def __init__(self, url: str | None, token: str | None):
        self.proc = None
        self.home = None
        if url:
            self.url, self.token = url.rstrip("/"), token or ""
            return
        self.token = token or hashlib.sha256(os.urandom(16)).hexdigest()[:24]
        port = _free_port()
        self.url = f"http://127.0.0.1:{port}"
        self.home = tempfile.mkdtemp(prefix="recourselab-home-")
        args = f"--no-browser --port={port} --ServerApp.token={self.token}"
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args += " --allow-root"  # JupyterLab refuses to run as root without it (containers)
        env = {**os.environ, "HOME": self.home}
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTERLAB_SETTINGS_DIR", "JUPYTERLAB_WORKSPACES_DIR"):
            env.pop(name, None)
        self.log = open(Path(self.home) / "lab.log", "w")
        self.proc = subprocess.Popen(["make", "lab", f"LAB_ARGS={args}"], cwd=REPO, env=env, stdout=self.log,
                                     stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.time() + 600  # the first `make lab` may install the venv
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"make lab exited with {self.proc.returncode}:\n{self.log_text()[-3000:]}")
            try:
                self.api("GET", "/api/status")
                return
            except OSError:
                time.sleep(1)
        raise RuntimeError("JupyterLab did not answer within 600 s:\n" + self.log_text()[-3000:])

    def log_text(self) -> str:
        return (Path(self.home) / "lab.log").read_text() if self.home else ""

    def api(self, method: str, path: str, body=None):
        request = urllib.request.Request(self.url + path, method=method,
                                         headers={"Authorization": f"token {self.token}",
                                                  "Content-Type": "application/json"},
                                         data=None if body is None else json.dumps(body).encode())
        with urllib.request.urlopen(request, timeout=30) as answer:
            text = answer.read()
        return json.loads(text) if text else None

    def session(self, path: str):
        """The kernel session of the notebook at ``path`` (relative to the repository), or None."""
        for session in self.api("GET", "/api/sessions"):
            if session.get("path") == path:
                return session
        return None

    def kernel_state(self, path: str) -> str | None:
        session = self.session(path)
        if not session:
            return None
        return self.api("GET", f"/api/kernels/{session['kernel']['id']}").get("execution_state")

    def autosave_off(self) -> None:
        """Turn JupyterLab's autosave off in our fresh HOME, so only our Ctrl+S writes a page.

        (Pages open marked as modified, and a chapter runs longer than the 120 s autosave interval;
        an autosave would write a page while other people may be editing it.) Not done on a
        server we did not start (``--url``): there, other people's settings are left alone.
        """
        if self.home is None:
            print("note: --url server: autosave left as it is; a page edited while open is skipped", flush=True)
            return
        self.api("PUT", "/lab/api/settings/@jupyterlab/docmanager-extension:plugin",
                 {"raw": json.dumps({"autosave": False})})

    def shutdown_sessions(self) -> None:
        for session in self.api("GET", "/api/sessions"):
            self.api("DELETE", f"/api/sessions/{session['id']}")

    def stop(self) -> None:
        if self.proc is None:
            return
        try:
            self.shutdown_sessions()
        except OSError:
            pass
        os.killpg(self.proc.pid, signal.SIGTERM)  # the process group `make lab` leads (make and jupyter)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.log.close()
        shutil.rmtree(self.home, ignore_errors=True)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# ---------------------------------------------------------------------------------------------
# one page open in the browser


class Page:
    """A book page opened in JupyterLab by a double click in the file browser, in its own browser tab."""

    def __init__(self, browser, lab: Lab, relpath: str):
        self.lab, self.relpath = lab, relpath
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.console = []
        self.page.on("console", lambda m: m.type == "error" and self.console.append(m.text))
        self.page.on("pageerror", lambda e: self.console.append(f"uncaught: {e}"))
        self.dialogs = []
        # kernel traffic seen on the page's websockets: widget updates sent, busy statuses received
        self.traffic = Counter()
        self.page.on("websocket", self._watch)
        folder, name = relpath.rsplit("/", 1)
        # ?reset: a fresh workspace, so no document of an earlier check is restored
        self.page.goto(f"{lab.url}/lab/tree/{folder}?reset&token={lab.token}")
        item = self.page.locator(f".jp-DirListing-item[title^='Name: {name}\\a']")  # \a: the title's newline
        item.first.wait_for(timeout=120_000)
        item.first.dblclick()
        self.page.wait_for_selector(".jp-NotebookPanel .jp-Cell, .jp-FileEditor .cm-content, "
                                    ".jp-RenderedMarkdown", timeout=120_000)
        time.sleep(2)  # let the document finish loading (kernel session, first render)
        self.open_dialogs = self.cancel_dialogs()  # e.g. "Select Kernel" for a page without a kernelspec

    def _watch(self, socket) -> None:
        def as_bytes(payload):
            return payload if isinstance(payload, bytes) else payload.encode()

        def sent(payload):
            self.traffic["comm_msg sent"] += b'"comm_msg"' in as_bytes(payload)

        def received(payload):
            data = as_bytes(payload)
            self.traffic["busy received"] += b'"execution_state": "busy"' in data or b'"execution_state":"busy"' in data

        socket.on("framesent", sent)
        socket.on("framereceived", received)

    @property
    def kind(self) -> str:
        if self.page.locator(".jp-NotebookPanel").count():
            return "notebook"
        if self.page.locator(".jp-FileEditor").count():
            return "text editor"
        return "other viewer"

    def dirty(self) -> bool:
        return self.page.locator(".lm-TabBar-tab.jp-mod-current.jp-mod-dirty").count() > 0

    def close(self) -> None:
        self.page.close(run_before_unload=False)

    # -- dialogs --------------------------------------------------------------------------------
    def cancel_dialogs(self) -> list[str]:
        """Cancel every open dialog (e.g. "File Changed"), returning their texts."""
        texts = []
        while self.page.locator(".jp-Dialog").count():
            dialog = self.page.locator(".jp-Dialog").first
            texts.append(" ".join(dialog.inner_text().split())[:300])
            reject = dialog.locator(".jp-Dialog-button.jp-mod-reject")
            if reject.count():
                reject.first.click()
            else:
                self.page.keyboard.press("Escape")
            time.sleep(0.5)
        self.dialogs += texts
        return texts

    # -- saving ---------------------------------------------------------------------------------
    def save(self, original: bytes, timeout: float = 60) -> tuple[bool | None, str, bytes, int]:
        """Press Ctrl+S in the notebook and wait until JupyterLab has written the file.

        Returns (saved, message, bytes after, mtime after). ``saved`` is None when the save was not
        attempted or was cancelled because the file changed on disk since it was opened (someone
        else edited it): then nothing of ours touched the file and nothing must be restored.
        """
        path = REPO / self.relpath
        before = path.stat().st_mtime_ns
        if path.read_bytes() != original:
            return None, "the file changed on disk while it was open (edited by someone else); not saved", b"", 0
        self.page.locator(".jp-NotebookPanel, .jp-FileEditor").first.click(position={"x": 5, "y": 5})
        self.page.keyboard.press("Escape")  # command mode
        self.page.keyboard.press("Control+s")
        deadline = time.time() + timeout
        while time.time() < deadline:
            texts = self.cancel_dialogs()
            if texts:
                return None, "save cancelled, JupyterLab asked: " + " | ".join(texts), b"", 0
            if path.stat().st_mtime_ns != before and not self.dirty():
                time.sleep(0.5)
                return True, "saved", path.read_bytes(), path.stat().st_mtime_ns
            time.sleep(0.25)
        return False, f"no save within {timeout:.0f} s", b"", 0

    # -- running --------------------------------------------------------------------------------
    def prompts(self) -> dict:
        return self.page.evaluate("""() => {
            const ps = [...document.querySelectorAll('.jp-CodeCell .jp-InputArea-prompt')]
                .map(e => e.textContent.trim());
            return {cells: ps.length, running: ps.filter(t => t.includes('*')).length,
                    done: ps.filter(t => /\\[\\d+\\]/.test(t)).length};
        }""")

    def wait_all_cells(self, timeout: float = 120) -> int:
        """Wait until every cell of the file is in the page (JupyterLab attaches long notebooks bit by bit)."""
        import jupytext

        expected = len(jupytext.read(REPO / self.relpath).cells)
        deadline = time.time() + timeout
        while self.page.locator(".jp-Cell").count() < expected and time.time() < deadline:
            time.sleep(0.5)
        return expected

    def run_all(self, timeout: float) -> tuple[bool, str, float]:
        """Run > Run All Cells; wait until no cell is queued or running. (ok, evidence, seconds)."""
        self.wait_all_cells()
        deadline = time.time() + 120
        while self.lab.kernel_state(self.relpath) not in ("idle",) and time.time() < deadline:
            time.sleep(0.5)
        start = time.time()
        self.page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        self.page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()
        idle_polls = 0
        while time.time() - start < timeout:
            self.cancel_dialogs()
            counts = self.prompts()
            state = self.lab.kernel_state(self.relpath)
            idle_polls = idle_polls + 1 if counts["running"] == 0 and state == "idle" else 0
            if idle_polls >= 4:
                break
            time.sleep(0.5)
        elapsed = time.time() - start
        counts = self.prompts()
        problems = self.page.evaluate("""() => [...document.querySelectorAll(
                '.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]')]
                .map(e => e.textContent.trim().slice(0, 400))""")
        ok = counts["running"] == 0 and counts["done"] == counts["cells"] and not problems
        evidence = f"{counts['done']}/{counts['cells']} code cells run in {elapsed:.0f} s"
        if counts["running"]:
            evidence += f", {counts['running']} still queued or running after {timeout:.0f} s"
        if problems:
            evidence += f", {len(problems)} error/stderr output(s): " + " || ".join(problems[:3])
        return ok, evidence, elapsed

    # -- MyST rendering ---------------------------------------------------------------------------
    def rendered_markdown(self) -> list[dict]:
        """Every markdown cell as rendered (jupyterlab-myst's ``.myst`` widget, or JupyterLab's own)."""
        return self.page.evaluate("""() => [...document.querySelectorAll('.jp-MarkdownCell')].map(c => {
            const r = c.querySelector('.jp-Cell-inputArea > .myst, .jp-RenderedMarkdown');
            if (!r) return null;
            return {text: r.textContent,
                    codes: [...r.querySelectorAll('code')].map(e => e.textContent.trim()),
                    unresolved: [...r.querySelectorAll('[title]')].map(e => e.getAttribute('title'))
                        .filter(t => /not found|unknown|error/i.test(t))};
        })""")

    def myst_check(self) -> tuple[bool, str, list[str]]:
        """Raw markup, {eval} roles left as code, and errors in the rendered markdown. (ok, evidence, examples)."""
        source = (REPO / self.relpath).read_text()
        expressions = set(re.findall(r"\{eval\}`([^`]+)`", source))
        n_roles = len(re.findall(r"\{eval\}`", source))
        cells = self.rendered_markdown()
        counts, unresolved, examples = Counter(), Counter(), []
        for cell in cells:
            if cell is None:
                counts["markdown cell not rendered"] += 1
                continue
            text = cell["text"]
            for kind, pattern in RAW_MARKUP.items():
                for hit in pattern.finditer(text):
                    counts[kind] += 1
                    if len(examples) < 8:
                        examples.append(f"{kind}: {text[max(0, hit.start() - 50):hit.end() + 50]!r}")
            for code in cell["codes"]:
                if code in expressions:  # jupyterlab-myst shows an {eval} role as code until it has its value
                    counts["{eval} not evaluated"] += 1
                    if len(examples) < 8:
                        examples.append(f"{{eval}} not evaluated: {code!r}")
            for hit in re.finditer(r"(NameError|AttributeError|KeyError|SyntaxError|TypeError|Traceback)", text):
                counts["error text"] += 1
                if len(examples) < 8:
                    examples.append(f"error text: {text[max(0, hit.start() - 80):hit.end() + 80]!r}")
            unresolved.update(cell["unresolved"])
        total = sum(counts.values())
        evidence = (f"{len(cells)} markdown cells, {n_roles} {{eval}} roles in the source; {total} raw/unevaluated "
                    f"leftover(s) {dict(counts) or ''}")
        if unresolved:
            evidence += f"; marked by jupyterlab-myst: {dict(unresolved)}"
        return total == 0, evidence, examples

    # -- explorers --------------------------------------------------------------------------------
    def explorers(self) -> int:
        """Mark every explorer (a VBox with a row of controls and an Output) and return how many."""
        return self.page.evaluate("""() => {
            let n = 0;
            for (const box of document.querySelectorAll('.jp-OutputArea-output .widget-vbox')) {
                const kids = [...box.children];
                if (kids.some(k => k.classList.contains('widget-output'))
                    && kids.some(k => k.querySelector('.widget-hslider, .widget-dropdown'))) {
                    box.setAttribute('data-check-explorer', String(n++));
                }
            }
            return n;
        }""")

    def explorer_images(self, index: int) -> list[str]:
        box = self.page.locator(f"[data-check-explorer='{index}'] > .widget-output")
        return box.evaluate("o => [...o.querySelectorAll('img')].map(i => i.src)")

    def explorer_text(self, index: int) -> str:
        box = self.page.locator(f"[data-check-explorer='{index}'] > .widget-output")
        return box.evaluate("o => o.textContent")

    def controls(self, index: int):
        return self.page.locator(f"[data-check-explorer='{index}'] .widget-hslider, "
                                 f"[data-check-explorer='{index}'] .widget-dropdown")

    def change(self, control, step: int) -> str:
        """Change one control as a reader does; return 'label: old -> new'."""
        label = control.locator(".widget-label").first.text_content().strip()  # textContent: also off screen
        if "widget-dropdown" in (control.get_attribute("class") or ""):
            select = control.locator("select")
            options = select.locator("option").all_text_contents()
            old = select.evaluate("s => s.selectedIndex")
            new = (old + 1) % len(options)
            select.select_option(index=new)
            return f"{label}: {options[old]} -> {options[new]}"
        readout = control.locator(".widget-readout")
        old = readout.text_content().strip()
        for _attempt in range(3):  # the page may still be laying out cells scrolled into view: check, retry
            self._drag(control, step)
            new = readout.text_content().strip()
            if new != old:
                break
        return f"{label}: {old} -> {new}" + ("" if new != old else " (THE DRAG DID NOT MOVE THE SLIDER)")

    def _drag(self, control, step: int) -> None:
        handle, track = control.locator(".noUi-handle"), control.locator(".noUi-target")
        handle.scroll_into_view_if_needed()
        time.sleep(1.0)
        h, t = handle.bounding_box(), track.bounding_box()
        x, y = h["x"] + h["width"] / 2, h["y"] + h["height"] / 2
        # a fifth of the track, towards the side with more room, so every drag changes the value
        dx = (0.2 + 0.05 * (step % 2)) * t["width"] * (1 if x < t["x"] + t["width"] / 2 else -1)
        self.page.mouse.move(x, y)
        self.page.mouse.down()
        for i in range(1, 11):
            self.page.mouse.move(x + dx * i / 10, y)
        self.page.mouse.up()
        time.sleep(0.3)

    def wait_redraw(self, index: int, before: list[str], timeout: float) -> tuple[list[str], float, str]:
        """Wait until the explorer's images change, or the kernel went back to idle without a change."""
        start, seen_busy, idle_polls = time.time(), False, 0
        traffic = self.traffic.copy()
        while time.time() - start < timeout:
            images = self.explorer_images(index)
            if images and images != before:
                time.sleep(0.5)  # a redraw may put several images; take the settled output
                while self.lab.kernel_state(self.relpath) != "idle" and time.time() - start < timeout:
                    time.sleep(0.25)
                return self.explorer_images(index), time.time() - start, "redrawn"
            state = self.lab.kernel_state(self.relpath)
            seen_busy |= state == "busy"
            idle_polls = idle_polls + 1 if state == "idle" else 0
            if idle_polls >= 8 and (seen_busy or time.time() - start > 10):
                sent = self.traffic["comm_msg sent"] - traffic["comm_msg sent"]
                busy = self.traffic["busy received"] - traffic["busy received"]
                return images, time.time() - start, (f"no new image; {sent} widget message(s) sent to the kernel, "
                                                     f"{busy} busy status(es) back, kernel idle")
            time.sleep(0.25)
        return self.explorer_images(index), time.time() - start, f"timeout after {timeout:.0f} s"


def image_problem(src: str) -> str | None:
    """Why a data-URL image is not a drawn figure (None when it is one)."""
    from PIL import Image

    if not src.startswith("data:image/png;base64,"):
        return f"not an inline PNG ({src[:40]!r})"
    raw = base64.b64decode(src.split(",", 1)[1])
    if len(raw) < 1000:
        return f"only {len(raw)} bytes"
    image = Image.open(io.BytesIO(raw)).convert("RGBA")
    alpha = image.getchannel("A")
    if alpha.getextrema()[1] == 0:
        return f"fully transparent {image.size[0]}x{image.size[1]} PNG"
    colours = image.getcolors(maxcolors=2)
    if colours is not None and len(colours) < 2:
        return f"a single colour {colours[0][1]} ({image.size[0]}x{image.size[1]})"
    return None


def digest(images: list[str]) -> str:
    return hashlib.sha256("\n".join(images).encode()).hexdigest()[:10]


# ---------------------------------------------------------------------------------------------
# the checks


def pages(selection: list[str] | None) -> list[str]:
    """Book pages as paths relative to the repository (``book/x.md``), chapters first."""
    skip = {".ipynb_checkpoints", "_ext", "data"}  # not pages: checkpoints, Sphinx extensions, data sets' READMEs
    found = sorted(p for p in BOOK.rglob("*.md") if not skip & set(p.relative_to(BOOK).parts))
    rel = [str(p.relative_to(REPO)) for p in found]
    if selection:
        chosen = [r for r in rel if Path(r).stem in selection or r in selection]
        missing = set(selection) - {Path(r).stem for r in chosen} - set(chosen)
        if missing:
            raise SystemExit(f"--pages names {sorted(missing)}, which are not pages of the book ({rel}).")
        return chosen
    return sorted(rel, key=lambda r: ("appendix" in r, r))


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def restore_if_changed(report: Report, relpath: str, original: bytes, saved: bytes, mtime: int) -> bool:
    """True when our save left ``original``; otherwise report the diff and undo our save.

    The saved version is first copied to a temporary file (named in the output), and the original
    bytes are written back only if nobody wrote the file after our save (same bytes and mtime).
    """
    if saved == original:
        return True
    diff = list(difflib.unified_diff(original.decode().splitlines(), saved.decode().splitlines(), "before", "after",
                                     lineterm="", n=1))
    report.note("\n".join(diff[:80]) + (f"\n... ({len(diff) - 80} more diff lines)" if len(diff) > 80 else ""))
    backup = Path(tempfile.mkstemp(prefix=Path(relpath).stem + "-saved-by-check-lab-", suffix=".md")[1])
    backup.write_bytes(saved)
    path = REPO / relpath
    if path.read_bytes() == saved and path.stat().st_mtime_ns == mtime:
        path.write_bytes(original)
        report.note(f"(restored {relpath} to its bytes from before the check; the saved version is in {backup})")
    else:
        report.note(f"(NOT restored: {relpath} was written again after our save; our saved version is in {backup})")
    return False


def check_open(browser, lab: Lab, report: Report) -> None:
    relpath = "book/recourse_basics.md"
    page = Page(browser, lab, relpath)
    try:
        kind = page.kind
        deadline = time.time() + 60
        while lab.session(relpath) is None and time.time() < deadline:
            time.sleep(0.5)
        session = lab.session(relpath)
        if kind == "notebook":
            page.wait_all_cells()
        cells = page.page.locator(".jp-Cell").count()
        kernel = page.page.locator(".jp-KernelName, .jp-Toolbar-kernelName").first.inner_text() \
            if kind == "notebook" else "none"
        ok = kind == "notebook" and cells > 0 and session is not None
        report.result("open", relpath, ok,
                      f"double click opened a {kind} with {cells} cells, kernel {kernel!r}, session "
                      f"{'type ' + session['type'] + ', kernel ' + session['kernel']['name'] if session else 'none'}"
                      f" (HOME={lab.home or 'not ours'})")
        report_console(report, relpath, page)
    finally:
        page.close()
        lab.shutdown_sessions()


def check_save(browser, lab: Lab, report: Report, relpath: str) -> None:
    path = REPO / relpath
    original = path.read_bytes()
    page = Page(browser, lab, relpath)
    try:
        dirty = page.dirty()
        asked = f" (on opening JupyterLab asked: {' | '.join(page.open_dialogs)})" if page.open_dialogs else ""
        saved, message, after, mtime = page.save(original)
        if not saved:
            report.result("save", relpath, saved, f"{page.kind}: {message}")
            return
        same = restore_if_changed(report, relpath, original, after, mtime)
        report.result("save", relpath, same,
                      f"opened as {page.kind}{' (marked modified on open)' if dirty else ''}{asked}, Ctrl+S: "
                      f"sha256 {'unchanged ' + sha(path)[:12] if same else 'CHANGED (diff above)'}")
        report_console(report, relpath, page)
    finally:
        page.close()
        lab.shutdown_sessions()


def check_run(browser, lab: Lab, report: Report, relpath: str, timeout: float, do_save: bool) -> None:
    """Run all cells; then the explorers, the MyST rendering, and (optionally) save after running."""
    path = REPO / relpath
    original = path.read_bytes()
    page = Page(browser, lab, relpath)
    try:
        ok, evidence, _ = page.run_all(timeout)
        report.result("run", relpath, ok, evidence)

        # MyST: raw markup or unevaluated {eval} roles left in the rendered markdown
        ok, evidence, examples = page.myst_check()
        report.result("myst", relpath, ok, evidence)
        for example in examples:
            report.note(example)

        # explorers
        for index in range(page.explorers()):
            check_explorer_in_browser(page, report, relpath, index)

        if do_save:
            saved, message, after, mtime = page.save(original)
            if not saved:
                report.result("run-save", relpath, saved, message)
            else:
                same = restore_if_changed(report, relpath, original, after, mtime)
                report.result("run-save", relpath, same,
                              "saved after running all cells: sha256 "
                              + ("unchanged" if same else "CHANGED (diff above)"))
        report_console(report, relpath, page)
    finally:
        page.close()
        lab.shutdown_sessions()


def check_explorer_in_browser(page: Page, report: Report, relpath: str, index: int) -> None:
    """Five control changes: the figure must survive each (item 1) and should change with each (item 5)."""
    controls = page.controls(index)
    n = controls.count()
    images = page.explorer_images(index)
    seen = {digest(images)} if images else set()
    problems, unchanged, steps = [], [], []
    first = [image_problem(src) for src in images]
    if not images or any(first):
        problems.append(f"initial figure: {first or 'no image'}")
    for step in range(CHANGES):
        what = page.change(controls.nth(step % n), step)
        after, seconds, how = page.wait_redraw(index, images, timeout=300)
        bad = [b for b in ([image_problem(src) for src in after] if after else ["no image"]) if b]
        text = page.explorer_text(index)
        if "Traceback" in text:
            bad.append("a traceback in the output area")
        changed = after != images
        steps.append(f"change {step + 1}: {what} [{how}, {seconds:.1f} s, {len(after)} image(s)"
                     f"{', ' + '; '.join(bad) if bad else ''}]")
        if bad or how.startswith("timeout"):
            problems.append(f"change {step + 1} ({what}): {'; '.join(bad) or how}")
        elif not changed:
            unchanged.append(f"change {step + 1} ({what})")
        if after:
            seen.add(digest(after))
        images = after
    report.result("explorer", relpath, not problems,
                  f"explorer {index + 1}: {n} control(s), {CHANGES} changes, a drawn figure after "
                  f"{CHANGES - len(problems)} of them, {len(seen)} distinct images"
                  + (f"; problems: {problems}" if problems else ""))
    report.result("effect", relpath, not unchanged,
                  f"explorer {index + 1}: the figure changed after {CHANGES - len(unchanged)} of {CHANGES} changes"
                  + (f"; unchanged after {unchanged} (the change lines say whether the kernel got the widget "
                     "message and ran; an identical figure is not re-sent)" if unchanged else ""))
    for line in steps:
        report.note(line)


def report_console(report: Report, relpath: str, page: Page) -> None:
    counts = Counter(page.console)
    if counts:
        report.note(f"console errors on {relpath}: {sum(counts.values())} "
                    + "; ".join(f"{n}x {text[:160]!r}" for text, n in counts.most_common(8)))
    else:
        report.note(f"console errors on {relpath}: 0")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--checks", nargs="+", choices=["open", "save", "run"], default=["open", "save", "run"])
    parser.add_argument("--pages", nargs="+", help="page names (recourse_basics) or paths (book/x.md); default all")
    parser.add_argument("--run-save", nargs="*", default=["recourse_basics"],
                        help="chapters saved after running all cells (default recourse_basics; 'all' for every one)")
    parser.add_argument("--timeout", type=float, default=900, help="seconds allowed for running one chapter")
    parser.add_argument("--url", help="an already running JupyterLab (default: start `make lab` from a fresh HOME)")
    parser.add_argument("--token", help="its token")
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args(argv)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        sys.exit("Playwright is missing: .venv/bin/pip install playwright (dev only; never `playwright install`)")

    report = Report()
    chosen = pages(args.pages)
    lab = Lab(args.url, args.token)
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=args.chromium, args=CHROMIUM_ARGS)
            if "open" in args.checks:
                check_open(browser, lab, report)
            lab.autosave_off()
            if "save" in args.checks:
                for relpath in chosen:
                    check_save(browser, lab, report, relpath)
            if "run" in args.checks:
                for relpath in chosen:
                    if "{code-cell}" not in (REPO / relpath).read_text():
                        continue
                    do_save = "all" in args.run_save or Path(relpath).stem in args.run_save
                    check_run(browser, lab, report, relpath, args.timeout, do_save)
            browser.close()
    finally:
        lab.stop()
    print(f"\n{len(report.lines)} results, {report.failed} FAIL")
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
