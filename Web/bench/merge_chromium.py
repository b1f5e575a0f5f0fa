"""The Chromium side of `easel bench wasm --chromium`: serves the module,
the shell, the timing code and the workload from a temporary folder on a
free port, opens them in Debian's headless Chromium (Selenium), and prints
the page's {"seconds", "hash"} as JSON.

    python3 Web/bench/merge_chromium.py WORKLOAD MODULE"""

import functools
import http.server
import json
import pathlib
import shutil
import sys
import tempfile
import threading
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

HERE = pathlib.Path(__file__).resolve().parent


class Files(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".mjs": "text/javascript", ".wasm": "application/wasm"}

    def log_message(self, *arguments):
        pass


def main():
    workload, module = (pathlib.Path(argument) for argument in sys.argv[1:3])
    with tempfile.TemporaryDirectory() as folder:
        site = pathlib.Path(folder)
        shutil.copy(module, site / "easel.wasm")
        shutil.copy(workload, site / "workload.bin")
        shutil.copy(HERE.parent / "Page" / "easel.mjs", site / "easel.mjs")
        shutil.copy(HERE / "merge-core.mjs", site / "merge-core.mjs")
        shutil.copy(HERE / "merge-chromium.html", site / "index.html")
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Files, directory=folder))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
            options.add_argument(argument)
        driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        try:
            driver.get(f"http://127.0.0.1:{server.server_address[1]}/index.html")
            deadline = time.time() + 300
            result = None
            while result is None and time.time() < deadline:
                result = driver.execute_script("return window.benchResult ?? null")
                time.sleep(0.1)
        finally:
            driver.quit()
            server.shutdown()
    if not result or "error" in result:
        sys.exit(f"the page gave no result: {result}")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
