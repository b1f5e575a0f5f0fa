"""The page behind a real router: `easel cluster` (PostgreSQL, two nodes,
HAProxy), where a node that does not hold a document sends the page to the
one that does, and the page follows through the router."""

import asyncio
import json
import pathlib
import signal
import socket
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import SITE, easel_binary
from pages import Canvas, wait_until

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "OutsideClients"))
import easel_ws_client  # noqa: E402  (the outside client, found by path)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Cluster:
    """`easel cluster --nodes 2`, stopped by `stop()` however the test ends."""

    def __init__(self, folder):
        self.port = free_port()
        self.log = open(folder / "cluster.log", "w")
        self.process = subprocess.Popen(
            [str(easel_binary()), "cluster", "--nodes", "2", "--spare", "0", "--port", str(self.port),
             "--web", str(SITE), "--json"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.http = f"http://127.0.0.1:{self.port}"
        deadline = time.time() + 120
        while time.time() < deadline:
            line = self.process.stdout.readline()
            if not line:
                break
            if json.loads(line).get("event") == "ready":
                return
        self.stop()
        pytest.fail("easel cluster did not start: see cluster.log")

    def home(self, document):
        """The node the router sends `document` to."""
        with urllib.request.urlopen(f"{self.http}/d/{document}?home=1", timeout=5) as answer:
            return answer.read().decode().strip()

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.log.close()


@pytest.fixture
def cluster(tmp_path):
    running = Cluster(tmp_path)
    yield running
    running.stop()


def test_a_page_sent_to_the_node_holding_its_document_follows_through_the_router(cluster, browsers):
    # A document the router sends to node1, held by node2: an outside
    # client asked the router for node2 by name, and pushed there.
    document = next(name for name in (f"web/moved-{index}" for index in range(64)) if cluster.home(name) == "node1")
    asyncio.run(easel_ws_client.push_once(f"ws://127.0.0.1:{cluster.port}/d/{document}?node=node2", document))

    page = Canvas(browsers(), cluster, document)
    wait_until(lambda: page.state["drawn"] == 1, what="the pushed emoji on the page")
    address = page.js("return window.easel.connection.socket.url")
    assert address.endswith(f"/d/{document}?node=node2"), address
    assert page.js("return window.easel.session.movedTo") == "node2"

    page.place_emoji("🦊")
    wait_until(lambda: page.state["drawn"] == 2 and not page.state["pending"], what="the page's edit acknowledged")
