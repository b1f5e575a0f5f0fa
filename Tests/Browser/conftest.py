"""A real `easel serve` with the web canvas, and real headless Chromium
(Debian's, driven by Selenium with Debian's chromedriver), for the page's
tests. Every server and browser a test starts is stopped when it ends."""

import os
import pathlib
import re
import signal
import subprocess

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
SITE = ROOT / ".build-wasm" / "site"


def easel_binary() -> pathlib.Path:
    for configuration in ("debug", "release"):
        path = ROOT / ".build" / configuration / "easel"
        if path.exists():
            return path
    pytest.fail("no easel binary: run `swift build` (the README's test command does) first")


class Server:
    def __init__(self, folder: pathlib.Path, arguments=(), secret=None):
        if not (SITE / "canvas.html").exists():
            pytest.fail("no web canvas: run Web/build.sh (the README's test command does) first")
        self.database = folder / "easel.db"
        # The log goes to a file: a pipe nobody reads would fill and stall
        # the server.
        self.log_path = folder / "easel.log"
        self.log_file = open(self.log_path, "w")
        self.process = subprocess.Popen(
            [str(easel_binary()), "serve", "--port", "0", "--db", str(self.database), "--web", str(SITE),
             "--log-format", "json", *arguments],
            stdout=subprocess.PIPE, stderr=self.log_file, text=True,
            env={**{k: v for k, v in os.environ.items() if k != "EASEL_SECRET"},
                 **({"EASEL_SECRET": secret} if secret else {})})
        self.secret = secret
        line = self.process.stdout.readline()
        match = re.search(r"ws://127\.0\.0\.1:(\d+)", line)
        if not match:
            self.process.kill()
            pytest.fail(f"easel serve did not start: {line} {self.log()}")
        self.port = int(match.group(1))
        self.http = f"http://127.0.0.1:{self.port}"
        self.ws = f"ws://127.0.0.1:{self.port}"

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log_file.close()

    def log(self):
        """What the server logged so far."""
        return self.log_path.read_text()


    def token(self, user, document, role):
        result = subprocess.run(
            [str(easel_binary()), "token", "--user", user, "--doc", document, "--role", role, "--ttl", "1h"],
            capture_output=True, text=True, env={**os.environ, "EASEL_SECRET": self.secret}, check=True)
        return result.stdout.strip()


@pytest.fixture
def server(tmp_path):
    running = Server(tmp_path)
    yield running
    running.stop()


@pytest.fixture
def secured_server(tmp_path):
    running = Server(tmp_path, secret="a browser test's secret, 32 bytes")
    yield running
    running.stop()


def chromium(width=1200, height=800):
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", f"--window-size={width},{height}",
                     "--disable-dev-shm-usage"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


@pytest.fixture
def browsers():
    """Opens browsers on demand (each its own profile: its own user); quits them all."""
    opened = []

    def open_browser(width=1200, height=800):
        driver = chromium(width, height)
        opened.append(driver)
        return driver

    yield open_browser
    for driver in opened:
        driver.quit()
