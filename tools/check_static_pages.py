"""Open the built book's pages in headless Chromium and report console errors, failed requests and twins.

Usage (after ``make book``, or a build into another directory)::

    .venv/bin/python tools/check_static_pages.py [--html _build/html] [--pages recourse_basics fair_ranking ...]
                                                   [--widths 1280 390] [--offline]
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
  control that changes nothing, counts as an error; so does a series its legend names that the
  opening chart does not draw (a legend symbol whose colour no mark of the plot has);
* measures the layout at each viewport width of ``--widths`` (CSS px; 1280 a desktop, 390 a phone):
  the page must not scroll sideways, no twin's chart may be wider than the twin (clipped), the
  text of adjacent table cells must stay at least ``MIN_CELL_GAP`` px apart (numbers run together
  otherwise), and the figures' text is reported in CSS px: the theme's tick labels
  (``recourselab.viz.set_theme``) as shown, from each PNG's natural and displayed width
  (``--min-figure-text`` makes a smaller one an error);
* with ``--offline``, refuses every request that leaves the local server (the CDN blocked, as on a
  machine without a network) and checks that each twin shows its one-line offline note
  (``.recourselab-twin-offline``), not an error, and that nothing on the page throws.

Exits 1 when any page has a console error, a failed request, an unserved URL, a broken twin or a
layout error (offline: a twin without its note, or an uncaught error); 0 otherwise. ``--json``
writes the per-page report to a file.

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
# the text of adjacent table cells closer than this (CSS px) reads as one number ("20,0001,057,327")
MIN_CELL_GAP = 8.0
# the figures' PNGs: matplotlib's inline backend saves them at figure.dpi (the theme's 100 dots per inch)
FIGURE_DPI = 100


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


LEGEND = """
(root) => {
  const svg = root.querySelector('.vega-embed svg');
  if (!svg) return null;
  const colour = (el, attribute) => {
    const value = (el.getAttribute(attribute) || '').trim().toLowerCase();
    return value && value !== 'none' && value !== 'transparent' ? value : null;
  };
  const drawn = new Set();
  svg.querySelectorAll('g.role-mark > *').forEach(mark => {
    for (const attribute of ['fill', 'stroke']) { const c = colour(mark, attribute); if (c) drawn.add(c); }
  });
  const labels = [...svg.querySelectorAll('g.role-legend-label text')].map(t => t.textContent);
  const symbols = [...svg.querySelectorAll('g.role-legend-symbol > path')];
  return labels.map((label, i) => {
    const colours = symbols[i] ? ['fill', 'stroke'].map(a => colour(symbols[i], a)).filter(Boolean) : [];
    return {label, colours, drawn: colours.some(c => drawn.has(c))};
  });
}
"""

LAYOUT = """
() => {
  const article = document.querySelector('.bd-article') || document.body;
  const figures = [...article.querySelectorAll('.cell_output img')].filter(img => img.naturalWidth > 0).map(img => {
    const box = img.getBoundingClientRect();
    return {src: (img.currentSrc || img.src).split('/').pop().slice(0, 40), natural: img.naturalWidth,
            shown: Math.round(box.width * 10) / 10};
  });
  const twins = [...article.querySelectorAll('div.recourselab-twin')].map(twin => {
    const chart = twin.querySelector('.vega-embed svg, .vega-embed canvas');
    const outer = twin.getBoundingClientRect();
    const box = chart ? chart.getBoundingClientRect() : null;
    const text = chart ? [...chart.querySelectorAll('text')].map(t => parseFloat(getComputedStyle(t).fontSize) ||
                                                                  parseFloat(t.getAttribute('font-size')) || 0) : [];
    return {twin_width: Math.round(outer.width), chart_width: box ? Math.round(box.width) : null,
            overflow: box ? Math.round(box.right - Math.min(outer.right, window.innerWidth)) : null,
            smallest_text: text.length ? Math.min(...text) : null};
  });
  const tables = [...article.querySelectorAll('table')].map((table, index) => {
    let gap = Infinity, where = '';
    table.querySelectorAll('tr').forEach(row => {
      let previous = null;
      for (const cell of row.children) {
        const range = document.createRange();
        range.selectNodeContents(cell);
        const rects = [...range.getClientRects()].filter(r => r.width > 0 && r.height > 0);
        const text = cell.textContent.trim();
        if (!rects.length || !text) { previous = null; continue; }
        const left = Math.min(...rects.map(r => r.left)), right = Math.max(...rects.map(r => r.right));
        if (previous && left - previous.right < gap) {
          gap = left - previous.right;
          where = previous.text + ' | ' + text;
        }
        previous = {right, text};
      }
    });
    return {index, gap: gap === Infinity ? null : Math.round(gap * 10) / 10, where: where.slice(0, 80)};
  });
  return {viewport: window.innerWidth, page_width: document.documentElement.scrollWidth,
          content_width: Math.round(article.getBoundingClientRect().width), figures, twins, tables};
}
"""


def check_layout(page, report, tick_pt: float, min_figure_text: float) -> None:
    """The page's layout at this width: sideways scrolling, clipped twins, table cells that touch, figure text."""
    layout = page.evaluate(LAYOUT)
    for figure in layout["figures"]:  # the theme's tick labels as shown, in CSS px
        figure["text_px"] = round(tick_pt * FIGURE_DPI / 72 * figure["shown"] / figure["natural"], 1)
    report["layout"] = layout
    if layout["page_width"] > layout["viewport"] + 1:
        report["errors"].append(f"the page scrolls sideways: {layout['page_width']} px wide in a "
                                f"{layout['viewport']} px window")
    for index, twin in enumerate(layout["twins"]):
        if twin["overflow"] is not None and twin["overflow"] > 1:
            report["errors"].append(f"twin {index}: chart {twin['chart_width']} px wide in a {twin['twin_width']} px "
                                    f"twin, {twin['overflow']} px clipped")
    for table in layout["tables"]:
        if table["gap"] is not None and table["gap"] < MIN_CELL_GAP:
            report["errors"].append(f"table {table['index']}: adjacent cells {table['gap']} px apart "
                                    f"(< {MIN_CELL_GAP}): {table['where']!r}")
    small = [f for f in layout["figures"] if f["text_px"] < min_figure_text]
    for figure in small:
        report["errors"].append(f"figure {figure['src']}: text {figure['text_px']} px (< {min_figure_text}), "
                                f"{figure['natural']} px PNG shown {figure['shown']} px wide")


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
        entry["legend"] = twin.evaluate(LEGEND) or []
        missing = [item["label"] for item in entry["legend"] if not item["drawn"]]
        if missing:
            report["errors"].append(f"twin {index}: the legend names {missing}, which the chart does not draw")
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


def check_offline_twins(page, report) -> None:
    """Offline: every twin shows its one-line note (and no error) once its scripts have failed to load."""
    twins = page.locator("div.recourselab-twin")
    report["twins"] = []
    for index in range(twins.count()):
        twin = twins.nth(index)
        entry = {"index": index, "controls": [], "note": None}
        report["twins"].append(entry)
        try:
            twin.locator(".recourselab-twin-offline").first.wait_for(timeout=15_000)
            entry["note"] = twin.locator(".recourselab-twin-offline").first.inner_text().strip()
        except Exception:  # noqa: BLE001 (reported, not raised)
            shown = twin.inner_text().strip().replace("\n", " ")[:200]
            report["errors"].append(f"twin {index}: no offline note; it shows {shown!r}")
        if twin.locator(".error").count():
            error = twin.locator(".error").first.inner_text()[:200]
            report["errors"].append(f"twin {index}: shows an error: {error!r}")


def check(html: Path, pages: list[str], cache: Path, screenshots: Path | None, widths=(1280,), offline=False,
          tick_pt: float = 12.0, min_figure_text: float = 0.0) -> dict:
    from playwright.sync_api import sync_playwright

    files = NpmFiles(cache)
    server, base = serve(html)
    results = {}
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for name, width in ((name, width) for name in pages for width in widths):
                report = {"console_errors": [], "failed_requests": [], "unserved": [], "served_from_npm": [],
                          "errors": [], "width": width}
                key = name if width == widths[0] else f"{name}@{width}"
                results[key] = report
                # a phone: 390 CSS px wide, three device pixels per CSS px (as an iPhone 14), touch
                phone = width < 600
                context = browser.new_context(viewport={"width": width, "height": 844 if phone else 900},
                                              device_scale_factor=3 if phone else 1, is_mobile=phone, has_touch=phone)
                page = context.new_page()

                def route(route, request, report=report):
                    url = request.url
                    if url.startswith(base) or url.startswith("data:") or url.startswith("blob:"):
                        return route.continue_()
                    if offline:
                        report["unserved"].append(url)
                        return route.abort("internetdisconnected")
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
                shot = f"{name.replace('/', '_')}{'' if width == widths[0] else f'@{width}'}" + \
                    ("_offline" if offline else "")
                if screenshots:
                    page.screenshot(path=str(screenshots / f"{shot}.png"), full_page=False)
                if offline:
                    check_offline_twins(page, report)
                    if screenshots:
                        for index in range(page.locator("div.recourselab-twin").count()):
                            page.locator("div.recourselab-twin").nth(index).screenshot(
                                path=str(screenshots / f"{shot}_twin{index}.png"))
                else:
                    check_twins(page, report, screenshots, shot)
                page.wait_for_timeout(300)
                check_layout(page, report, tick_pt, min_figure_text)
                context.close()
            browser.close()
    finally:
        server.shutdown()
    return results


def theme_tick_pt() -> float:
    """The tick-label size (points) of the book's theme, as the figures were drawn with it."""
    import matplotlib.pyplot as plt
    from matplotlib.font_manager import FontProperties

    from recourselab.viz import set_theme

    with plt.rc_context():
        set_theme()
        return FontProperties(size=plt.rcParams["xtick.labelsize"]).get_size_in_points()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--html", type=Path, default=Path("_build/html"), help="the built site (default _build/html)")
    parser.add_argument("--pages", nargs="*", help="page names under book/, e.g. fair_ranking appendix/api "
                                                   "(default: every page under book/)")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/recourselab_cdn"),
                        help="where the npm packages standing in for the CDN are unpacked")
    parser.add_argument("--screenshots", type=Path, help="save a screenshot of each page and twin here")
    parser.add_argument("--json", type=Path, help="write the per-page report here")
    parser.add_argument("--widths", type=int, nargs="+", default=[1280],
                        help="viewport widths in CSS px, each page opened at each (default 1280; 390 is a phone)")
    parser.add_argument("--offline", action="store_true",
                        help="block every outside request (the CDN too) and check the twins' offline note")
    parser.add_argument("--tick-pt", type=float, default=None,
                        help="size of the figures' tick labels in points (default: recourselab.viz.set_theme's)")
    parser.add_argument("--min-figure-text", type=float, default=0.0,
                        help="fail when a figure's tick labels are shown smaller than this (CSS px; default 0: report)")
    args = parser.parse_args(argv)
    if not (args.html / "book").is_dir():
        parser.error(f"--html {args.html} has no book/ folder; build the book first (make book).")
    pages = args.pages or sorted(p.relative_to(args.html / "book").with_suffix("").as_posix()
                                 for p in (args.html / "book").rglob("*.html"))
    if args.screenshots:
        args.screenshots.mkdir(parents=True, exist_ok=True)
    tick_pt = args.tick_pt if args.tick_pt is not None else theme_tick_pt()
    results = check(args.html, pages, args.cache, args.screenshots, widths=args.widths, offline=args.offline,
                    tick_pt=tick_pt, min_figure_text=args.min_figure_text)
    bad = 0
    for name, report in results.items():
        # offline, the blocked CDN files fail by design: only uncaught errors and missing notes count
        kinds = ("errors",) if args.offline else ("console_errors", "failed_requests", "unserved", "errors")
        problems = [item for kind in kinds for item in report[kind]]
        problems += [e for e in report["console_errors"] if args.offline and e.startswith("uncaught")]
        bad += bool(problems)
        twins = report.get("twins", [])
        if args.offline:
            twin_text = ", ".join(f"twin {t['index']}: " + (repr(t["note"][:60]) if t["note"] else "no note")
                                  for t in twins) or "no twin"
        else:
            twin_text = ", ".join(f"twin {t['index']}: " + ("; ".join(f"{c['label']} {c['changes']}/{c['tried']}"
                                                                      for c in t["controls"]) or "not drawn")
                                  for t in twins) or "no twin"
        layout = report.get("layout", {})
        sizes = [f["text_px"] for f in layout.get("figures", [])]
        gaps = [t["gap"] for t in layout.get("tables", []) if t["gap"] is not None]
        figure_text = (f"{len(sizes)} figures, tick text {min(sizes)}-{max(sizes)} px" if sizes else "no figure")
        table_text = f"{len(gaps)} tables, cells >= {min(gaps)} px apart" if gaps else "no table"
        print(f"{name}: {len(report['console_errors'])} console errors, {len(report['failed_requests'])} failed "
              f"requests, {len(report['unserved'])} unserved, {len(report['served_from_npm'])} CDN files from npm; "
              f"{twin_text}; {figure_text}; {table_text}")
        for kind in kinds + (("console_errors",) if args.offline else ()):
            for item in report[kind]:
                if args.offline and kind == "console_errors" and not item.startswith("uncaught"):
                    continue
                print(f"    {kind}: {item[:300]}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1))
    print(f"{len(results) - bad} of {len(results)} pages clean")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
