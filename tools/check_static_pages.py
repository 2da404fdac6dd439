"""Open the built book's pages in headless Chromium and report console errors, failed requests and twins.

Usage (after ``make book``, or a build into another directory)::

    .venv/bin/python tools/check_static_pages.py [--html _build/html] [--pages recourse_basics fair_ranking ...]
                                                   [--cache /tmp/recourselab_cdn] [--screenshots DIR]

What it does, per page:

* serves the built site from a local HTTP server on 127.0.0.1 (as a web host would, not ``file://``);
* answers every request to a CDN the pages use (``cdn.jsdelivr.net/npm/<package>@<version>/<file>``,
  ``unpkg.com/<package>@<version>/<file>`` and cdnjs' ``require.js``) from the package of the same
  name and version on the npm registry (``npm pack`` into ``--cache``, once), through Playwright's
  ``page.route``, so that the check sees the page "with the CDN files available" even on a
  machine that cannot reach the CDN. A request to any other outside host is refused and
  listed as *unserved*;
* collects console messages of type ``error``, uncaught page errors, failed requests and
  responses with status >= 400;
* for every kernel-free twin on the page (the interactive charts made by
  :func:`recourselab.viz.twin_chart`, ``div.recourselab-twin``), waits until Vega has drawn it, then
  moves each of its range sliders (and selects each other option of its dropdowns), and checks
  that the drawn chart (its SVG or canvas) changes every time. A twin that does not render, or a
  control that changes nothing, counts as an error.

Exits 1 when any page has a console error, a failed request, an unserved URL, or a broken twin;
0 otherwise. ``--json`` writes the per-page report to a file.

Requirements (not in requirements.txt, as only this check needs them): ``pip install playwright``
into the venv, Debian's ``chromium`` (``/usr/bin/chromium``; do not run ``playwright install``,
which downloads a browser) and ``npm`` (to fetch the CDN files from the npm registry).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import mimetypes
import re
import subprocess
import sys
import tarfile
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
# cdnjs serves some libraries under its own paths; map them to the npm package and file with the same content
CDNJS = {"require.js": ("requirejs", "require.js")}


class NpmFiles:
    """The files of npm packages, fetched once with ``npm pack`` and kept in ``cache``."""

    def __init__(self, cache: Path):
        self.cache = cache
        self.cache.mkdir(parents=True, exist_ok=True)
        self.lock = threading.Lock()

    @functools.lru_cache(maxsize=None)  # noqa: B019 (one instance per run)
    def package_dir(self, spec: str) -> Path | None:
        """Unpack ``name@version-range`` (the version npm resolves the range to) and return its folder."""
        safe = re.sub(r"[^A-Za-z0-9@._-]", "_", spec)
        target = self.cache / safe
        if (target / "package" / "package.json").exists():
            return target / "package"
        with self.lock:
            target.mkdir(parents=True, exist_ok=True)
            done = subprocess.run(["npm", "pack", spec, "--silent", "--pack-destination", str(target)],
                                  capture_output=True, text=True, cwd=target)
            tarballs = list(target.glob("*.tgz"))
            if done.returncode != 0 or not tarballs:
                print(f"  npm pack {spec} failed: {done.stderr.strip()[-300:]}", file=sys.stderr)
                return None
            with tarfile.open(tarballs[0]) as tar:
                tar.extractall(target, filter="data")
        folder = target / "package"
        return folder if folder.exists() else None

    def resolve(self, spec: str, path: str) -> Path | None:
        """The file ``path`` of package ``spec``; an empty path gives the file a CDN serves by default."""
        folder = self.package_dir(spec)
        if folder is None:
            return None
        if not path:
            meta = json.loads((folder / "package.json").read_text())
            for field in ("jsdelivr", "unpkg", "browser", "main"):
                entry = meta.get(field)
                if isinstance(entry, str):
                    path = entry
                    break
            else:
                path = "index.js"
        candidate = folder / path.lstrip("./")
        for option in (candidate, candidate.with_name(candidate.name + ".js")):
            if option.is_file():
                return option
        if candidate.name.endswith(".min.js"):  # a minified build that the package does not ship: the plain one
            plain = candidate.with_name(candidate.name[:-len(".min.js")] + ".js")
            if plain.is_file():
                return plain
        return None


def split_npm_url(url: str) -> tuple[str, str] | None:
    """``(package@version, path)`` for a jsdelivr/unpkg/cdnjs URL of an npm package, else None."""
    parts = urlsplit(url)
    path = unquote(parts.path)
    if parts.netloc == "cdn.jsdelivr.net" and path.startswith("/npm/"):
        rest = path[len("/npm/"):]
    elif parts.netloc == "unpkg.com":
        rest = path.lstrip("/")
    elif parts.netloc == "cdnjs.cloudflare.com":
        match = re.match(r"/ajax/libs/([^/]+)/([^/]+)/(.+)$", path)
        if not match:
            return None
        library, version, file = match.groups()
        name, default = CDNJS.get(Path(file).name.replace(".min", ""), (library, file))
        return f"{name}@{version}", default
    else:
        return None
    match = re.match(r"((?:@[^/]+/)?[^/@]+)(?:@([^/]+))?/?(.*)$", rest)
    if not match:
        return None
    name, version, file = match.groups()
    return f"{name}@{version or 'latest'}", file


def serve(root: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


TWIN_STATE = """
(root) => {
  const view = root.querySelector('svg, canvas');
  if (!view) return null;
  if (view.tagName.toLowerCase() === 'canvas') return view.toDataURL();
  return view.outerHTML;
}
"""


def _control_actions(control):
    """Functions that set each other value of one Vega binding (range, select or radio), and one that resets it."""
    slider = control.locator("input[type=range]")
    select = control.locator("select")
    radios = control.locator("input[type=radio]")
    if slider.count():
        lo, hi, step, start = (float(slider.get_attribute(a) or d) for a, d in
                               (("min", 0), ("max", 100), ("step", 1), ("value", 0)))
        targets = [lo, hi, lo + step * round((hi - lo) / step / 2)]
        targets = [t for t in dict.fromkeys(targets) if abs(t - start) > 1e-12]

        def set_to(value):
            slider.evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('input', {bubbles: true}));"
                            " el.dispatchEvent(new Event('change', {bubbles: true})); }", str(value))

        return [functools.partial(set_to, t) for t in targets], functools.partial(set_to, start)
    if select.count():
        options = select.locator("option").all_inner_texts()
        current = select.evaluate("el => el.selectedIndex")
        return ([functools.partial(select.select_option, index=i) for i in range(len(options)) if i != current],
                functools.partial(select.select_option, index=current))
    if radios.count():
        checked = [radios.nth(i).is_checked() for i in range(radios.count())]
        return ([radios.nth(i).check for i in range(radios.count()) if not checked[i]],
                radios.nth(checked.index(True)).check)
    return None


def check_twins(page, report, screenshots: Path | None, name: str) -> None:
    twins = page.locator("div.recourselab-twin")
    count = twins.count()
    report["twins"] = []
    for index in range(count):
        twin = twins.nth(index)
        twin.scroll_into_view_if_needed()
        entry = {"index": index, "controls": [], "rendered": False}
        report["twins"].append(entry)
        try:
            twin.locator(".vega-embed svg, .vega-embed canvas").first.wait_for(timeout=20_000)
        except Exception as err:  # noqa: BLE001 (reported, not raised)
            report["errors"].append(f"twin {index}: no chart drawn ({type(err).__name__})")
            continue
        entry["rendered"] = True
        page.wait_for_timeout(300)
        if screenshots:
            twin.screenshot(path=str(screenshots / f"{name}_twin{index}_before.png"))
        for control_index, control in enumerate(twin.locator(".vega-bind").all()):
            label = control.locator(".vega-bind-name").first.inner_text().strip() if \
                control.locator(".vega-bind-name").count() else f"control {control_index}"
            state = {"label": label, "changes": 0, "tried": 0}
            entry["controls"].append(state)
            actions = _control_actions(control)
            if actions is None:
                continue
            setter, reset = actions
            for change in setter:
                before = twin.evaluate(TWIN_STATE)
                change()
                page.wait_for_timeout(250)
                after = twin.evaluate(TWIN_STATE)
                state["tried"] += 1
                state["changes"] += int(after != before)
            if screenshots and setter:
                twin.screenshot(path=str(screenshots / f"{name}_twin{index}_{control_index}_after.png"))
            reset()
            page.wait_for_timeout(150)
            if state["tried"] and state["changes"] < state["tried"]:
                report["errors"].append(f"twin {index}: control {label!r} left the chart unchanged in "
                                        f"{state['tried'] - state['changes']} of {state['tried']} changes")
        if not entry["controls"]:
            report["errors"].append(f"twin {index}: no slider or dropdown found")


def check(html: Path, pages: list[str], cache: Path, screenshots: Path | None) -> dict:
    from playwright.sync_api import sync_playwright

    files = NpmFiles(cache)
    server, base = serve(html)
    results = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for name in pages:
                report = {"console_errors": [], "failed_requests": [], "unserved": [], "served_from_npm": [],
                          "errors": []}
                results[name] = report
                context = browser.new_context(viewport={"width": 1280, "height": 900})
                page = context.new_page()

                def route(route, request, report=report):
                    url = request.url
                    if url.startswith(base) or url.startswith("data:") or url.startswith("blob:"):
                        return route.continue_()
                    found = split_npm_url(url)
                    target = files.resolve(*found) if found else None
                    if target is None:
                        report["unserved"].append(url)
                        return route.abort("blockedbyclient")
                    report["served_from_npm"].append(url)
                    kind = mimetypes.guess_type(target.name)[0] or "application/octet-stream"
                    if target.suffix == ".js":
                        kind = "application/javascript"
                    return route.fulfill(status=200, body=target.read_bytes(), content_type=kind,
                                         headers={"Access-Control-Allow-Origin": "*"})

                page.route("**/*", route)
                page.on("console", lambda msg, report=report: report["console_errors"].append(
                    f"{msg.text} ({msg.location.get('url', '')}:{msg.location.get('lineNumber', '')})")
                    if msg.type == "error" else None)
                page.on("pageerror", lambda err, report=report: report["console_errors"].append(f"uncaught: {err}"))
                page.on("requestfailed", lambda req, report=report: report["failed_requests"].append(
                    f"{req.url} ({req.failure})") if not any(u.startswith(req.url + " ") or u == req.url for u in
                                                             report["unserved"] + report["failed_requests"]) else None)
                page.on("response", lambda resp, report=report: report["failed_requests"].append(
                    f"{resp.url} (HTTP {resp.status})") if resp.status >= 400 else None)
                page.goto(f"{base}/book/{name}.html", wait_until="load", timeout=60_000)
                try:
                    page.wait_for_load_state("networkidle", timeout=20_000)
                except Exception:  # noqa: BLE001 (a page that keeps polling still gets checked)
                    pass
                page.wait_for_timeout(1500)
                if screenshots:
                    page.screenshot(path=str(screenshots / f"{name.replace('/', '_')}.png"), full_page=False)
                check_twins(page, report, screenshots, name.replace("/", "_"))
                page.wait_for_timeout(300)
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return results


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=Path("_build/html"), help="the built site (default _build/html)")
    parser.add_argument("--pages", nargs="*", help="page names under book/, e.g. fair_ranking appendix/api "
                                                   "(default: every page under book/)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/recourselab_cdn"),
                        help="where the npm packages standing in for the CDN are unpacked")
    parser.add_argument("--screenshots", type=Path, help="save a screenshot of each page and twin here")
    parser.add_argument("--json", type=Path, help="write the per-page report here")
    args = parser.parse_args(argv)
    if not (args.html / "book").is_dir():
        parser.error(f"--html {args.html} has no book/ folder; build the book first (make book).")
    pages = args.pages or sorted(p.relative_to(args.html / "book").with_suffix("").as_posix()
                                 for p in (args.html / "book").rglob("*.html"))
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    results = check(args.html, pages, args.cache, args.screenshots)
    bad = 0
    for name, report in results.items():
        problems = report["console_errors"] + report["failed_requests"] + report["unserved"] + report["errors"]
        bad += bool(problems)
        twins = report.get("twins", [])
        twin_text = ", ".join(f"twin {t['index']}: " + ("; ".join(f"{c['label']} {c['changes']}/{c['tried']}"
                                                                  for c in t["controls"]) or "not drawn")
                              for t in twins) or "no twin"
        print(f"{name}: {len(report['console_errors'])} console errors, {len(report['failed_requests'])} failed "
              f"requests, {len(report['unserved'])} unserved, {len(report['served_from_npm'])} CDN files from npm; "
              f"{twin_text}")
        for kind in ("console_errors", "failed_requests", "unserved", "errors"):
            for item in report[kind]:
                print(f"    {kind}: {item[:300]}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    print(f"{len(results) - bad} of {len(results)} pages clean")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
