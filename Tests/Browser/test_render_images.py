"""`easel render --embed-images` of a document whose image a bot uploaded
to a real `easel serve`: the SVG carries the bytes, and the PNG that
rsvg-convert makes of it shows the image's real pixels, the right way
round. No browser: the render is the client here."""

import re
import subprocess

from PIL import Image

from conftest import easel_binary
from test_images import QUADRANTS, quadrant_png


def run(*arguments, status=0):
    result = subprocess.run([str(easel_binary()), *arguments], capture_output=True, text=True, timeout=120)
    assert result.returncode == status, result.stdout + result.stderr
    return result


def test_render_with_embedded_images_shows_the_uploaded_pixels_in_svg_and_png(server, tmp_path):
    picture = tmp_path / "quadrants.png"
    picture.write_bytes(quadrant_png(240, 160))
    script = tmp_path / "image.easel"
    script.write_text(f'place image "{picture}" at 0 0\n')
    run("bot", "--url", server.ws, "--doc", "render/images", "--script", str(script))

    svg = tmp_path / "render.svg"
    run("render", "--db", str(server.database), "--doc", "render/images", "--embed-images", "-o", str(svg))
    text = svg.read_text()
    assert "data:image/png;base64," in text
    x, y, width, height = (float(n) for n in re.search(r'viewBox="([^"]+)"', text).group(1).split())

    png = tmp_path / "render.png"
    run("render", "--db", str(server.database), "--doc", "render/images", "--embed-images", "--png", "-o", str(png))
    rendered = Image.open(png).convert("RGB")
    # The image is 240 x 160 document units centred on the origin: each
    # quadrant's centre, mapped from the SVG's frame to the PNG's pixels.
    for name, colour in QUADRANTS.items():
        document_x = 60 if "right" in name else -60
        document_y = 40 if "bottom" in name else -40
        pixel = (round((document_x - x) / width * rendered.width), round((document_y - y) / height * rendered.height))
        seen = rendered.getpixel(pixel)
        assert all(abs(a - b) <= 12 for a, b in zip(seen, colour)), f"{name}: {seen} at {pixel}, expected {colour}"


def test_a_missing_blob_fails_the_bots_check_and_the_render_names_it_and_shows_the_placeholder(server, tmp_path):
    missing = "ab" * 32
    script = tmp_path / "missing.easel"
    script.write_text(f"place image {missing} at 0 0 size 100 100\n")
    bot = run("bot", "--url", server.ws, "--doc", "render/missing", "--script", str(script), status=1)
    assert f"failed    image {missing}: 404" in bot.stdout, bot.stdout
    svg = tmp_path / "render.svg"
    result = run("render", "--db", str(server.database), "--doc", "render/missing", "--embed-images", "-o", str(svg))
    assert f"no blob {missing} is stored for render/missing" in result.stderr
    assert f"blobs/{missing}" in svg.read_text()
