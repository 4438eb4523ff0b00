// The item page: turn a text selection into code-point offsets, fill the span editor, keyboard
// shortcuts, drafts that survive a reload, the saved / saving / failed indicator with retries, and the
// active time spent on the item. Everything else is server-rendered and swapped in by htmx.
(function () {
  "use strict";
  const page = document.getElementById("item-page");
  if (!page) return;
  const draftKey = "factapp-draft:" + page.dataset.item;
  const statusBox = document.getElementById("save-status");
  const banner = document.getElementById("save-failed");
  let failedElt = null;
  let retryTimer = null;

  // htmx 2: swap 422 (validation errors, re-rendered forms) like a success; 5xx and network errors are failures.
  htmx.config.responseHandling = [
    { code: "204", swap: false },
    { code: "[23]..", swap: true },
    { code: "422", swap: true, error: false },
    { code: "[45]..", swap: false, error: true },
  ];

  const editor = () => document.getElementById("editor");
  const field = (name) => editor() && editor().elements.namedItem(name);

  // --- Offsets: the browser counts UTF-16 units, the server code points ------------------------------
  function codePoints(text) {
    return Array.from(text).length;
  }
  function offsetIn(container, node, offset) {
    const range = document.createRange();
    range.setStart(container, 0);
    range.setEnd(node, offset);
    return codePoints(range.toString());
  }
  function textContainer(node) {
    const el = node.nodeType === Node.ELEMENT_NODE ? node : node.parentElement;
    return el ? el.closest(".text[data-target]") : null;
  }
  function takeSelection() {
    const selection = window.getSelection();
    if (!selection || selection.isCollapsed || selection.rangeCount === 0 || !editor()) return false;
    const range = selection.getRangeAt(0);
    const container = textContainer(range.startContainer);
    if (!container || container !== textContainer(range.endContainer)) return false;
    const start = offsetIn(container, range.startContainer, range.startOffset);
    const end = offsetIn(container, range.endContainer, range.endOffset);
    if (end <= start) return false;
    resetEditor();
    field("target").value = container.dataset.target;
    field("start").value = start;
    field("end").value = end;
    field("quote").value = range.toString();
    suggestCategory(container.dataset.target);
    saveDraft();
    // Focus the categories, not a text box, so that 1-5 pick one; picking moves on to the justification.
    editor().querySelector(".categories").focus({ preventScroll: true });
    return true;
  }
  function suggestCategory(target) {
    if (target === "q") setCategory("question_misconception");
    else if (field("category").value === "question_misconception") clearCategory();
  }
  function setCategory(value) {
    const radio = editor().querySelector(`input[name=category][value="${value}"]`);
    if (radio) radio.checked = true;
    showHelpful();
  }
  function clearCategory() {
    editor().querySelectorAll("input[name=category]").forEach((r) => (r.checked = false));
    showHelpful();
  }
  function showHelpful() {
    const box = document.getElementById("editor-helpful");
    if (box) box.hidden = field("category").value !== "references";
  }

  // --- The editor ----------------------------------------------------------------------------------
  function resetEditor() {
    const form = editor();
    if (!form) return;
    form.reset();
    ["span_id", "version", "start", "end"].forEach((n) => (field(n).value = ""));
    field("target").value = "";
    field("quote").value = "";
    field("justification").value = "";
    field("references").value = "";
    clearCategory();
    form.querySelectorAll(".error").forEach((e) => e.remove());
    document.getElementById("editor-delete").hidden = true;
    document.getElementById("editor-title").textContent = "New span";
  }
  function openSpan(item) {
    if (!item || !item.dataset.mine || !editor()) return false;
    resetEditor();
    const d = item.dataset;
    field("span_id").value = d.spanId;
    field("version").value = d.version;
    field("target").value = d.target;
    field("start").value = d.start;
    field("end").value = d.end;
    field("quote").value = d.quote;
    field("justification").value = d.justification;
    field("references").value = (d.references || "").split(/\s+/).filter(Boolean).join("\n");
    document.getElementById("editor-whole").checked = d.whole === "1";
    setCategory(d.category);
    if (d.helpful) editor().querySelector(`input[name=helpful][value=${d.helpful}]`).checked = true;
    document.getElementById("editor-delete").hidden = false;
    document.getElementById("editor-title").textContent = "Edit span";
    field("justification").focus({ preventScroll: true });
    return true;
  }
  function spansAt(mark) {
    return (mark.dataset.spans || "").split(" ").map((id) => document.getElementById("span-" + id)).filter(Boolean);
  }
  function chooseSpan(mark) {
    const items = spansAt(mark);
    document.querySelectorAll(".span-item.at-point").forEach((i) => i.classList.remove("at-point"));
    items.forEach((i) => i.classList.add("at-point"));
    const mine = items.filter((i) => i.dataset.mine);
    // One span here: open it. Several (overlapping): open the innermost, and mark the others in the list.
    if (mine.length) openSpan(mine[mine.length - 1]);
    if (items.length) items[items.length - 1].scrollIntoView({ block: "nearest" });
  }

  document.addEventListener("mouseup", (event) => {
    if (textContainer(event.target) && !takeSelection()) {
      const mark = event.target.closest("mark.hl");
      if (mark && window.getSelection().isCollapsed) chooseSpan(mark);
    }
  });
  document.addEventListener("keyup", (event) => {
    if (event.shiftKey && textContainer(event.target)) takeSelection();
  });
  document.addEventListener("click", (event) => {
    const edit = event.target.closest(".edit-span");
    if (edit) openSpan(edit.closest(".span-item"));
    const missing = event.target.closest(".missing-button");
    if (missing && editor()) {
      resetEditor();
      field("target").value = missing.dataset.target;
      document.getElementById("editor-whole").checked = true;
      setCategory("completeness");
      saveDraft();
      field("justification").focus();
    }
    if (event.target.closest("#editor-cancel")) {
      resetEditor();
      clearDraft();
    }
  });
  document.addEventListener("change", (event) => {
    if (event.target.name === "category") showHelpful();
    if (event.target.id === "editor-whole" && event.target.checked) {
      setCategory("completeness");
      ["start", "end"].forEach((n) => (field(n).value = ""));
      field("quote").value = "";
    }
    if (event.target.name === "quote") ["start", "end"].forEach((n) => (field(n).value = ""));
  });
  document.addEventListener("input", (event) => {
    if (event.target.name === "quote") ["start", "end"].forEach((n) => (field(n).value = ""));
    if (event.target.closest("#editor, #preference")) saveDraft();
  });

  // --- Drafts: what is typed survives a reload until the server has it -------------------------------
  function saveDraft() {
    const draft = {};
    if (editor()) draft.editor = Object.fromEntries(new FormData(editor()).entries());
    const pref = document.getElementById("preference");
    if (pref) draft.preference = Object.fromEntries(new FormData(pref).entries());
    localStorage.setItem(draftKey, JSON.stringify(draft));
  }
  function clearDraft(part) {
    const stored = JSON.parse(localStorage.getItem(draftKey) || "{}");
    if (part) delete stored[part];
    if (!part || Object.keys(stored).length === 0) localStorage.removeItem(draftKey);
    else localStorage.setItem(draftKey, JSON.stringify(stored));
  }
  function restoreDraft() {
    const stored = JSON.parse(localStorage.getItem(draftKey) || "{}");
    if (stored.editor && editor() && (stored.editor.justification || stored.editor.quote || stored.editor.target)) {
      for (const [name, value] of Object.entries(stored.editor)) {
        const el = field(name);
        if (!el) continue;
        if (el instanceof RadioNodeList) {
          el.forEach((r) => (r.checked = r.value === value));
        } else if (el.type === "checkbox") {
          el.checked = value === "on";
        } else {
          el.value = value;
        }
      }
      if (stored.editor.span_id) document.getElementById("editor-delete").hidden = false;
      showHelpful();
    }
    const pref = document.getElementById("preference");
    if (stored.preference && pref) {
      const reason = pref.elements.namedItem("reason");
      if (stored.preference.reason && stored.preference.reason !== reason.value) {
        reason.value = stored.preference.reason;
        const choice = pref.querySelector(`input[name=preferred_answer][value="${stored.preference.preferred_answer}"]`);
        if (choice) choice.checked = true;
        htmx.trigger(pref, "change"); // the server has not got it yet: send it now
      }
    }
  }

  // --- Saved / saving / failed ---------------------------------------------------------------------
  function setStatus(state, text) {
    statusBox.dataset.state = state;
    statusBox.textContent = text;
  }
  document.body.addEventListener("htmx:beforeRequest", () => setStatus("saving", "Saving…"));
  document.body.addEventListener("htmx:afterRequest", (event) => {
    const xhr = event.detail.xhr;
    const elt = event.detail.elt;
    // A network error (status 0) or a server error: keep everything, say so, try again.
    if (!xhr || xhr.status === 0 || xhr.status >= 500) {
      setStatus("failed", "Not saved");
      failedElt = elt;
      banner.hidden = false;
      clearTimeout(retryTimer);
      retryTimer = setTimeout(retry, 5000);
      return;
    }
    banner.hidden = true;
    failedElt = null;
    if (xhr && xhr.status === 422) {
      setStatus("invalid", "Not saved: see the message");
      return;
    }
    setStatus("saved", "Saved");
    if (elt.closest && elt.closest("#preference")) clearDraft("preference");
    else if (elt.id === "editor" || elt.id === "editor-delete") clearDraft("editor");
  });
  function retry() {
    if (!failedElt) return;
    const elt = failedElt.isConnected ? failedElt : document.getElementById(failedElt.id);
    if (elt) htmx.trigger(elt, elt.tagName === "FORM" && elt.id !== "preference" ? "submit" : "change");
  }
  document.getElementById("retry-now").addEventListener("click", retry);
  document.body.addEventListener("htmx:afterSwap", () => {
    if (editor()) showHelpful();
  });

  // --- Keyboard --------------------------------------------------------------------------------------
  const categoriesByKey = { 1: "question_misconception", 2: "factuality", 3: "relevance", 4: "completeness", 5: "references" };
  document.addEventListener("keydown", (event) => {
    const t = event.target;
    const typing = t.matches && t.matches("input[type=text], textarea, select");
    if (event.key === "Escape") {
      const dialog = document.getElementById("shortcuts");
      if (dialog.open) return;
      resetEditor();
      clearDraft("editor");
      if (typing) t.blur();
      event.preventDefault();
      return;
    }
    if (event.key === "Enter" && editor() && editor().contains(t)) {
      // In the justification Enter saves and Shift+Enter starts a new line; in the references list
      // (one URL per line) Ctrl+Enter saves.
      if (t.tagName === "TEXTAREA" && (event.shiftKey || (t.name !== "justification" && !(event.ctrlKey || event.metaKey)))) {
        return;
      }
      if (t.tagName === "BUTTON") return;
      event.preventDefault();
      htmx.trigger(editor(), "submit");
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    if (categoriesByKey[event.key] && editor()) {
      setCategory(categoriesByKey[event.key]);
      saveDraft();
      event.preventDefault();
      field("justification").focus({ preventScroll: true });
    } else if (event.key === "/" && editor()) {
      event.preventDefault();
      resetEditor();
      field("target").focus();
    } else if (event.key === "n") {
      window.location.href = page.dataset.nextUrl;
    } else if (event.key === "?") {
      document.getElementById("shortcuts").showModal();
    } else if (event.key === "Enter" && editor() && field("justification").value) {
      event.preventDefault();
      htmx.trigger(editor(), "submit");
    }
  });
  document.getElementById("shortcuts-button").addEventListener("click", () => document.getElementById("shortcuts").showModal());

  // --- Active time: the tab is focused and the expert did something in the last minute ----------------
  const timeUrl = page.dataset.timeUrl;
  if (timeUrl) {
    let active = 0;
    let lastInput = Date.now();
    ["keydown", "mousedown", "mousemove", "scroll", "touchstart"].forEach((type) =>
      document.addEventListener(type, () => (lastInput = Date.now()), { passive: true })
    );
    setInterval(() => {
      if (document.hasFocus() && !document.hidden && Date.now() - lastInput < 60000) active += 1;
    }, 1000);
    const csrf = () => (document.querySelector("[name=csrfmiddlewaretoken]") || {}).value || "";
    const flush = () => {
      if (active <= 0) return;
      const body = new FormData();
      body.append("seconds", String(Math.min(active, 300)));
      body.append("csrfmiddlewaretoken", csrf());
      active = 0;
      navigator.sendBeacon(timeUrl, body);
    };
    setInterval(flush, 30000);
    window.addEventListener("pagehide", flush);
    document.addEventListener("visibilitychange", () => document.hidden && flush());
  }

  showHelpful();
  restoreDraft();
})();
