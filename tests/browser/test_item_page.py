"""An expert annotating items in the browser, end to end."""

import pytest

from annotation.choices import AnswerKind, Role
from annotation.models import Assignment, ErrorSpan, Preference
from tests import factories as f

PASSWORD = "pw-for-tests"
EMOJI_ANSWER = (
    "Light scatters 🌈 in the air.\r\nBlue light scatters more than red light.\r\n"
    "Cafe\u0301 owners agree: that is Rayleigh scattering."
)
SCRIPT_ANSWER = (
    'The sky reflects the sea. <script>window.__xss = 1</script> <img src=x onerror="window.__xss=2"> '
    "[a link](javascript:window.__xss=3) and <b>bold</b>."
)


@pytest.fixture
def items(transactional_db):  # noqa: ANN001, ANN201
    project = f.ProjectFactory(slug="sky", name="Sky project")
    annotator = f.member(project, Role.ANNOTATOR, "alice")
    other = f.member(project, Role.ANNOTATOR, "bob")
    questions = []
    for i, text in enumerate(["Why is the sky blue?", "Why are sunsets red?"]):
        question = f.QuestionFactory(project=project, text=text, external_id=f"q{i}")
        f.AnswerFactory(question=question, position=1, kind=AnswerKind.HUMAN, text=EMOJI_ANSWER)
        f.AnswerFactory(question=question, position=2, kind=AnswerKind.MODEL, text=SCRIPT_ANSWER)
        for user in (annotator, other):
            Assignment.objects.create(question=question, annotator=user)
        questions.append(question)
    return {"project": project, "alice": annotator, "bob": other, "questions": questions}


def login(page, username: str) -> None:  # noqa: ANN001
    page.goto("/accounts/login/")
    page.fill("#id_username", username)
    page.fill("#id_password", PASSWORD)
    page.click("button[type=submit]")
    page.wait_for_url("**/")


def open_next(page) -> None:  # noqa: ANN001
    page.goto("/projects/sky/next/")
    page.wait_for_selector("#editor")


def panel_for(page, text: str) -> str:  # noqa: ANN001
    """The data-target of the panel whose text contains ``text``."""
    return page.evaluate(
        """(needle) => [...document.querySelectorAll('.text[data-target]')]
             .find(el => el.textContent.includes(needle)).dataset.target""",
        text,
    )


RANGE_JS = """([target, needle]) => {
  const container = document.querySelector(`.text[data-target="${target}"]`);
  const walker = document.createTreeWalker(container, NodeFilter.SHOW_TEXT);
  const nodes = []; let all = '';
  while (walker.nextNode()) { nodes.push([walker.currentNode, all.length]); all += walker.currentNode.data; }
  const start = all.indexOf(needle), end = start + needle.length;
  const at = (pos) => { for (let i = nodes.length - 1; i >= 0; i--) if (nodes[i][1] <= pos) return [nodes[i][0], pos - nodes[i][1]]; };
  const range = document.createRange();
  range.setStart(...at(start)); range.setEnd(...at(end));
  return range;
}"""


def select_text(page, target: str, needle: str) -> None:  # noqa: ANN001
    """Select ``needle`` in a panel as a mouse would, then release the button."""
    page.evaluate(
        f"""(args) => {{ const range = ({RANGE_JS})(args); const s = window.getSelection();
            s.removeAllRanges(); s.addRange(range);
            range.startContainer.parentElement.dispatchEvent(new MouseEvent('mouseup', {{bubbles: true}})); }}""",
        [target, needle],
    )


def drag_select(page, target: str, needle: str) -> None:  # noqa: ANN001
    """Select ``needle`` by dragging the mouse from its first to its last character."""
    box = page.evaluate(
        f"""(args) => {{ const range = ({RANGE_JS})(args); const rects = range.getClientRects();
            const a = rects[0], b = rects[rects.length - 1];
            return {{x1: a.left + 1, y1: a.top + a.height / 2, x2: b.right - 1, y2: b.top + b.height / 2}}; }}""",
        [target, needle],
    )
    page.mouse.move(box["x1"], box["y1"])
    page.mouse.down()
    page.mouse.move((box["x1"] + box["x2"]) / 2, (box["y1"] + box["y2"]) / 2, steps=5)
    page.mouse.move(box["x2"], box["y2"], steps=5)
    page.mouse.up()


def save_span(page, category_key: str, justification: str) -> None:  # noqa: ANN001
    page.keyboard.press(category_key)
    page.keyboard.type(justification)
    page.keyboard.press("Enter")
    page.wait_for_function("document.getElementById('save-status').dataset.state !== 'saving'")


def test_drag_a_span_and_see_the_required_justification(page, items) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    target = panel_for(page, "Blue light")
    drag_select(page, target, "Blue light scatters more")
    assert page.input_value("#editor-quote") == "Blue light scatters more"
    page.keyboard.press("2")
    page.click("#editor-save")
    page.wait_for_selector("#editor .error")
    assert "A justification is required" in page.inner_text("#editor")
    assert page.inner_text("#save-status") == "Not saved: see the message"
    page.fill("#editor-justification", "Only for small particles.")
    page.click("#editor-save")
    page.wait_for_selector("mark.hl-factuality")
    assert page.inner_text("#save-status") == "Saved"
    span = ErrorSpan.objects.get(annotator=items["alice"])
    assert span.quote == "Blue light scatters more" and span.category == "factuality"
    assert span.answer.text[span.start : span.end] == span.quote


def test_a_span_after_an_emoji_a_crlf_and_a_combining_mark_stores_exactly_the_selected_text(
    page, items
) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    target = panel_for(page, "Rayleigh")
    select_text(page, target, "Rayleigh scattering")
    save_span(page, "3", "Name-dropping.")
    span = ErrorSpan.objects.get(annotator=items["alice"])
    assert span.quote == "Rayleigh scattering"
    # Code points: the emoji counts once (twice in the browser), CR LF twice, e + combining acute twice.
    assert span.start == EMOJI_ANSWER.index("Rayleigh")


def test_spans_in_every_category_edit_delete_and_overlap(page, items) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    emoji, script = panel_for(page, "Rayleigh"), panel_for(page, "reflects")
    select_text(page, "q", "sky")
    save_span(page, "1", "The sky is not blue at night.")
    select_text(page, emoji, "Light scatters")
    save_span(page, "2", "Wrong subject.")
    select_text(page, emoji, "scatters more than red")
    save_span(page, "3", "Off topic.")
    select_text(page, emoji, "more than red light")  # overlaps the relevance span
    save_span(page, "4", "Needs the wavelengths.")
    select_text(page, script, "The sky reflects the sea.")
    page.keyboard.press("5")
    page.check("input[name=helpful][value=no]")
    page.fill("#editor-justification", "A wrong analogy.")
    page.fill("#editor-references", "https://en.wikipedia.org/wiki/Rayleigh_scattering")
    page.click("#editor-save")
    page.wait_for_selector("mark.hl-references")
    categories = sorted(ErrorSpan.objects.filter(annotator=items["alice"]).values_list("category", flat=True))
    assert categories == ["completeness", "factuality", "question_misconception", "references", "relevance"]
    reference = ErrorSpan.objects.get(category="references")
    assert reference.helpful is False and reference.references == [
        "https://en.wikipedia.org/wiki/Rayleigh_scattering"
    ]
    # The overlap is one mark inside another, both listed when it is clicked.
    overlap = page.locator("mark.hl-relevance.hl-completeness")
    assert overlap.count() == 1
    overlap.click()
    assert page.locator(".span-item.at-point").count() == 2
    # Edit: open the relevance span from the list, change the justification.
    page.locator(".span-item.cat-relevance .edit-span").click()
    assert page.input_value("#editor-justification") == "Off topic."
    page.fill("#editor-justification", "Does not answer why.")
    page.click("#editor-save")
    page.wait_for_selector(".span-item.cat-relevance:has-text('Does not answer why.')")
    assert ErrorSpan.objects.get(category="relevance").version == 2
    # Delete the factuality span.
    page.locator(".span-item.cat-factuality .edit-span").click()
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#editor-delete")
    page.wait_for_function("!document.querySelector('.span-item.cat-factuality')")
    assert not ErrorSpan.objects.filter(category="factuality").exists()


def test_whole_answer_completeness_preference_submit_and_next(page, items) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    first_item = page.url
    script = panel_for(page, "reflects")
    page.click(f".missing-button[data-target='{script}']")
    page.fill("#editor-justification", "Never explains scattering.")
    page.keyboard.press("Enter")
    page.wait_for_selector(".span-item.cat-completeness")
    span = ErrorSpan.objects.get(annotator=items["alice"])
    assert span.whole_answer and span.category == "completeness" and span.start is None
    # Submitting without a preference is refused, with the reason.
    page.click("#submit-item")
    page.wait_for_selector("#submit-area .error")
    page.locator("#preference input[name=preferred_answer]").first.check()
    page.fill("#preference-reason", "It explains the mechanism.")
    page.wait_for_function("document.getElementById('save-status').dataset.state === 'saved'")
    preference = Preference.objects.get(annotator=items["alice"])
    assert preference.reason == "It explains the mechanism."
    page.click("#submit-item")
    page.wait_for_url(lambda url: url != first_item and "/questions/" in url)
    assert Assignment.objects.filter(annotator=items["alice"], submitted_at__isnull=False).count() == 1


def test_reload_keeps_saved_work_and_the_draft(page, items) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    emoji = panel_for(page, "Rayleigh")
    select_text(page, emoji, "Light scatters")
    save_span(page, "2", "Saved before the reload.")
    select_text(page, emoji, "that is")
    page.keyboard.press("3")
    page.keyboard.type("Typed but not saved")
    page.reload()
    page.wait_for_selector("#editor")
    assert page.locator("mark.hl-factuality").count() == 1
    assert page.input_value("#editor-justification") == "Typed but not saved"
    assert page.input_value("#editor-quote") == "that is"
    page.keyboard.press("Escape")
    page.reload()
    assert page.input_value("#editor-justification") == ""


def test_a_second_annotator_does_not_see_the_first(page, items, browser) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    select_text(page, panel_for(page, "Rayleigh"), "Light scatters")
    save_span(page, "2", "ALICE-ONLY")
    page.context.clear_cookies()
    login(page, "bob")
    open_next(page)
    assert "ALICE-ONLY" not in page.content()
    assert page.locator("mark.hl").count() == 0


def test_html_and_scripts_in_answers_are_shown_not_run(page, items) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    assert page.evaluate("window.__xss") is None
    text = page.inner_text(f".text[data-target='{panel_for(page, 'reflects')}']")
    assert "<script>window.__xss = 1</script>" in text and "<b>bold</b>" in text
    assert page.locator(".panel img, .panel b, .panel a[href^=javascript]").count() == 0


def test_a_span_without_the_mouse(page, items) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    emoji = panel_for(page, "Rayleigh")
    options = page.eval_on_selector_all("#editor-target option", "options => options.map(o => o.value)")
    page.keyboard.press("/")  # focuses "Where"
    for _ in range(options.index(emoji)):
        page.keyboard.press("ArrowDown")
    assert page.input_value("#editor-target") == emoji
    page.keyboard.press("Tab")
    page.keyboard.type("red light")
    page.keyboard.press("Tab")  # the whole-answer box
    page.keyboard.press("Tab")  # the categories
    page.keyboard.press("2")  # factuality, and on to the justification
    page.keyboard.type("Typed with the keyboard.")
    page.keyboard.press("Enter")
    page.wait_for_selector("mark.hl-factuality")
    assert ErrorSpan.objects.get(annotator=items["alice"]).quote == "red light"


def test_shortcuts_dialog_and_next_key(page, items) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    page.keyboard.press("?")
    assert page.locator("#shortcuts[open]").count() == 1
    page.keyboard.press("Escape")
    url = page.url
    page.keyboard.press("n")
    page.wait_for_load_state()
    assert "/questions/" in page.url and page.url == url  # nothing submitted: the same item is next


def test_a_failed_save_shows_a_banner_and_is_retried(page, items) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    calls = {"n": 0}

    def flaky(route) -> None:  # noqa: ANN001
        calls["n"] += 1
        if calls["n"] == 1:
            route.abort("connectionreset")
        else:
            route.continue_()

    page.route("**/spans/", flaky)
    select_text(page, panel_for(page, "Rayleigh"), "Light scatters")
    save_span(page, "2", "Survives a dropped connection.")
    page.wait_for_selector("#save-failed:not([hidden])")
    assert page.inner_text("#save-status") == "Not saved"
    page.wait_for_selector("mark.hl-factuality")  # retried by itself after a few seconds
    assert page.is_hidden("#save-failed") and page.inner_text("#save-status") == "Saved"
    assert ErrorSpan.objects.get(annotator=items["alice"]).justification == "Survives a dropped connection."


def test_active_time_is_recorded(page, items) -> None:  # noqa: ANN001
    login(page, "alice")
    open_next(page)
    page.bring_to_front()
    for _ in range(4):
        page.mouse.move(200, 300)
        page.keyboard.press("Shift")
        page.wait_for_timeout(700)
    page.goto("/")  # leaving the page sends what was counted
    page.wait_for_timeout(500)
    assignment = Assignment.objects.get(annotator=items["alice"], question=items["questions"][0])
    assert 1 <= assignment.active_seconds <= 5
