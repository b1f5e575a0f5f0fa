"""The document picker: a name the protocol refuses is explained by the
module's own rule and opens nothing; a good one opens its canvas, which the
picker then lists among the recent documents."""

from pages import Canvas, wait_until


def test_the_picker_explains_a_bad_name_by_the_protocols_rule_and_opens_a_good_one(server, browsers):
    driver = browsers()
    driver.get(f"{server.http}/")
    name = driver.find_element("css selector", "#name")
    name.send_keys("team/bad name")
    driver.find_element("css selector", "#open button[type=submit]").click()
    problem = wait_until(lambda: driver.execute_script("return document.getElementById('problem').textContent"),
                         what="the picker's reason")
    assert problem.startswith('Document name "team/bad name"') and "letter or digit" in problem, problem
    assert driver.current_url == f"{server.http}/", "a bad name opens nothing"

    name.clear()
    name.send_keys("team/board-1")
    driver.find_element("css selector", "#open button[type=submit]").click()
    wait_until(lambda: driver.current_url == f"{server.http}/d/team/board-1", what="the canvas of the good name")
    Canvas(driver, server, "team/board-1")
    driver.get(f"{server.http}/")
    recent = wait_until(lambda: driver.execute_script(
        "return [...document.querySelectorAll('#recent a')].map((a) => a.textContent)"), what="the recent list")
    assert recent == ["team/board-1"]

