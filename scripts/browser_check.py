"""The built book in a real browser: headless Chromium at a 1200 px window, driven by Selenium.

Every page must load with no console error and no broken image or missing asset, no code
block or table may be wider than the content column (it would scroll sideways), and the search
box must find `grid-stride`. Run by scripts/browser-check, which builds the book first.

    python3 scripts/browser_check.py BOOK_HTML_DIR
"""

import functools
import http.server
import pathlib
import sys
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

WINDOW = (1200, 900)

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
