"""Markup in what others type is shown as text and runs nothing: strings a
bot writes into texts, fonts and emoji reach every page through the
module's renderer and XML parsing, under a Content-Security-Policy."""

import json
import subprocess
import urllib.request

from selenium.common.exceptions import NoAlertPresentException

from conftest import easel_binary
from pages import Canvas, wait_until

HOSTILE = [
    "<script>alert(1)</script>",
    "</svg><img src=x onerror=alert(2)>",
    "\" onload=\"alert(3)",
    "javascript:alert(4)",
]


def quoted(text):
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_markup_in_texts_and_fonts_is_shown_as_text_and_runs_nothing(server, browsers, tmp_path):
    document = "web/hostile"
    page = Canvas(browsers(), server, document)
    script = [f"place text {quoted(text)} at {100 + 40 * index} {100 + 60 * index} font {quoted(text)} size 20"
              for index, text in enumerate(HOSTILE)]
    path = tmp_path / "hostile.easel"
    path.write_text("\n".join(script) + "\n")
    result = subprocess.run([str(easel_binary()), "bot", "--url", server.ws, "--doc", document, "--script", str(path)],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr

    texts = wait_until(lambda: [e[3] for e in page.entities() if e[1] == "text"] if len(page.entities()) == 4
                       else None, what="four texts drawn")
    assert sorted(texts) == sorted(HOSTILE)
    assert page.js("return [...document.querySelectorAll('script')].map((s) => s.getAttribute('src'))") == [
        "/static/boot.mjs", "/static/canvas.mjs"], "only the page's own scripts"
    assert page.js("return document.querySelectorAll('#entities img, #entities foreignObject').length") == 0
    assert page.js("return [...document.querySelectorAll('#entities *')]"
                   ".some(e => [...e.attributes].some(a => a.name.startsWith('on')))") is False
    try:
        alert = page.driver.switch_to.alert.text
    except NoAlertPresentException:
        alert = None
    assert alert is None
    assert [entry for entry in page.driver.get_log("browser") if entry["level"] == "SEVERE"] == []

    with urllib.request.urlopen(f"{server.http}/d/{document}") as response:
        policy = response.headers["Content-Security-Policy"]
    assert "script-src 'self' 'wasm-unsafe-eval'" in policy and "unsafe-inline" not in policy
