"""The built book in a real browser: headless Chromium at a 1200 px window, driven by Selenium.

Every page must load with no console error and no broken image or missing asset, no code
block or table may be wider than the content column (it would scroll sideways), and the search
box must find `grid-stride`. Every figure is then looked at in a light and a dark theme: it
must fit the column, its smallest text must be at least MIN_TEXT_PX high on the screen, and
the picture the browser paints must have a light background (a figure drawn in black on a
transparent background would vanish on a dark page). Screenshots of each figure in both themes
go to target/browser-figures/. Run by scripts/browser-check, which builds the book first.

    python3 scripts/browser_check.py BOOK_HTML_DIR
"""

import functools
import http.server
import pathlib
import struct
import sys
import threading
import time
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

WINDOW = (1200, 900)
# mdBook's themes: the default light one and a dark one.
THEMES = ("light", "navy")
# The smallest text of a figure, in CSS pixels at WINDOW's width.
MIN_TEXT_PX = 9.5
# A figure's corner must paint at least this light (0 to 255, mean of red, green and blue).
LIGHT = 200

# Blocks (pre) and tables wider than their column, missing images and failed resources.
PAGE_PROBLEMS = """
const main = document.querySelector('main');
const problems = [];
if (!main) { return ['the page has no <main>']; }
const column = main.clientWidth;
// The longest line names the block: it is the one to shorten.
const label = (el) => (el.innerText || '').split('\\n')
  .reduce((a, b) => (b.length > a.length ? b : a), '').trim().slice(0, 70);
for (const block of main.querySelectorAll('pre, pre > code')) {
  if (block.scrollWidth > block.clientWidth + 1 || block.getBoundingClientRect().width > column + 1) {
    problems.push(`code block ${block.scrollWidth} px wide in a ${block.clientWidth} px box: "${label(block)}"`);
  }
}
for (const table of main.querySelectorAll('table')) {
  const box = table.parentElement;
  if (table.getBoundingClientRect().width > column + 1 || box.scrollWidth > box.clientWidth + 1) {
    problems.push(`table ${Math.round(table.getBoundingClientRect().width)} px wide in a ${column} px column: "${label(table)}"`);
  }
}
for (const img of document.images) {
  if (!img.complete || img.naturalWidth === 0) { problems.push(`broken image ${img.src}`); }
}
for (const r of performance.getEntriesByType('resource')) {
  if (r.responseStatus >= 400) { problems.push(`asset ${r.name} answered ${r.responseStatus}`); }
}
return problems;
"""


# Per figure (an <img> of an .svg or .png in the page's text): its size on the screen, and for
# an SVG the smallest font-size of its text (the SVG's own text, fetched from the same origin).
FIGURES = """
const main = document.querySelector('main');
// The sticky menu bar would cover a figure's top in its screenshot.
for (const bar of document.querySelectorAll('#mdbook-menu-bar, #menu-bar')) {
  bar.style.visibility = 'hidden';
}
// Figures inside a solution or the instructor notes too.
for (const d of main.querySelectorAll('details')) { d.open = true; }
const column = main.clientWidth;
const out = [];
for (const img of main.querySelectorAll('img')) {
  const src = img.getAttribute('src') || '';
  // The zoomed copy that a click on a figure shows is hidden until then.
  if (!/[.](svg|png)$/.test(src) || img.closest('.img-wrapper')) { continue; }
  img.scrollIntoView();
  const box = img.getBoundingClientRect();
  let smallest = null;
  if (src.endsWith('.svg')) {
    const req = new XMLHttpRequest();
    req.open('GET', img.src, false);
    req.send();
    const svg = new DOMParser().parseFromString(req.responseText, 'image/svg+xml').documentElement;
    const root = parseFloat(svg.getAttribute('font-size') || '16');
    const view = (svg.getAttribute('viewBox') || '').split(/\\s+/).map(Number);
    const width = view.length === 4 ? view[2] : img.naturalWidth;
    const sizes = [...svg.querySelectorAll('text')]
      .map((t) => parseFloat(t.getAttribute('font-size') || String(root)));
    if (sizes.length) { smallest = Math.min(...sizes) * box.width / width; }
  }
  out.push({src, width: box.width, column, smallest, element: img});
}
return out;
"""


def light_corner(png):
    """The mean of red, green and blue of the pixel 3 px inside the top-left corner of a PNG
    screenshot (8-bit RGB or RGBA, as Chromium writes them)."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    pos, data, width, channels = 8, b"", 0, 0
    while pos < len(png):
        (length,), kind = struct.unpack(">I", png[pos:pos + 4]), png[pos + 4:pos + 8]
        chunk = png[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, _, depth, colour = struct.unpack(">IIBB", chunk[:10])
            channels = {2: 3, 6: 4}.get(colour, 0) if depth == 8 else 0
        elif kind == b"IDAT":
            data += chunk
        pos += 12 + length
    if not channels or width < 8:
        return None
    raw, stride, rows, prev = zlib.decompress(data), width * channels, [], None
    for r in range(4):
        start = r * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            a = line[i - channels] if i >= channels else 0
            b = prev[i] if prev else 0
            c = prev[i - channels] if prev and i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + a) & 255
            elif kind == 2:
                line[i] = (line[i] + b) & 255
            elif kind == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif kind == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line)
        prev = line
    pixel = rows[3][3 * channels:3 * channels + 3]
    return sum(pixel) / 3


def check_figures(driver, base, pages):
    """Each figure in each theme: (problems, figures looked at)."""
    problems, seen = [], 0
    shots = pathlib.Path("target/browser-figures")
    shots.mkdir(parents=True, exist_ok=True)
    for theme in THEMES:
        driver.get(base + "index.html")
        driver.execute_script(f"localStorage.setItem('mdbook-theme', '{theme}');")
        for page in pages:
            driver.get(base + page)
            for _ in range(50):  # the figures load after the page
                if driver.execute_script(
                        "return [...document.images].every((i) => i.complete);"):
                    break
                time.sleep(0.1)
            for fig in driver.execute_script(FIGURES):
                img = fig["element"]
                seen += 1
                name = f"{page}: {fig['src']} ({theme})"
                if fig["width"] > fig["column"] + 1:
                    problems.append(f"{name}: {fig['width']:.0f} px wide in a {fig['column']} px column")
                if fig["smallest"] is not None and fig["smallest"] < MIN_TEXT_PX:
                    problems.append(f"{name}: its smallest text is {fig['smallest']:.1f} px high, under {MIN_TEXT_PX}")
                if fig["width"] < 1:
                    problems.append(f"{name}: not shown (0 px wide)")
                    continue
                png = img.screenshot_as_png
                stem = fig["src"].rsplit("/", 1)[-1].rsplit(".", 1)[0]
                (shots / f"{stem}-{theme}.png").write_bytes(png)
                # A photograph-like PNG (the sky, an image) may be dark; a drawing may not.
                corner = light_corner(png) if fig["src"].endswith(".svg") else LIGHT
                if corner is None or corner < LIGHT:
                    problems.append(f"{name}: its background paints dark ({corner}) on this theme")
    return problems, seen


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def serve(root):
    handler = functools.partial(QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 f"--window-size={WINDOW[0]},{WINDOW[1]}"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def search_finds(driver, base, term):
    driver.get(base + "index.html")
    toggles = driver.find_elements(By.CSS_SELECTOR, "#mdbook-search-toggle, #search-toggle")
    if not toggles:
        return "the page has no search button"
    toggles[0].click()
    boxes = driver.find_elements(By.CSS_SELECTOR, "#mdbook-searchbar, #searchbar")
    if not boxes:
        return "the page has no search box"
    for _ in range(100):  # the search index loads after the click
        if boxes[0].is_displayed():
            break
        time.sleep(0.1)
    boxes[0].send_keys(term)
    for _ in range(100):
        hits = driver.find_elements(By.CSS_SELECTOR, "#mdbook-searchresults li, #searchresults li")
        if hits:
            return None
        time.sleep(0.1)
    return f"searching for `{term}` found nothing"


def main():
    if len(sys.argv) != 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        sys.exit(0 if len(sys.argv) == 2 else 2)
    root = pathlib.Path(sys.argv[1])
    pages = sorted(p.relative_to(root).as_posix() for p in root.rglob("*.html")
                   if p.name not in ("print.html", "toc.html"))
    if not pages:
        sys.exit(f"Error: no pages under {root}.")
    server = serve(root)
    base = f"http://127.0.0.1:{server.server_address[1]}/"
    driver = browser()
    failures = 0
    try:
        for page in pages:
            driver.get(base + page)
            problems = driver.execute_script(PAGE_PROBLEMS)
            problems += [f"console: {e['message']}" for e in driver.get_log("browser")
                         if e["level"] == "SEVERE"]
            for problem in problems:
                print(f"{page}: {problem}")
            failures += len(problems)
        problems, figures = check_figures(driver, base, pages)
        for problem in problems:
            print(problem)
        failures += len(problems)
        print(f"figures: {figures} looked at in the {' and '.join(THEMES)} themes")
        why = search_finds(driver, base, "grid-stride")
        if why:
            print(f"search: {why}")
            failures += 1
    finally:
        driver.quit()
        server.shutdown()
    print(f"browser check: {len(pages)} pages at {WINDOW[0]} px, {failures} problems")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
