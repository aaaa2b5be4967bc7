// Progressive enhancements of the server-rendered pages; every page works without them.
// Theme toggle, copy buttons on code, "/" to search, instant results under the search box.
// No framework, nothing from another origin, no inline script (the CSP forbids it); results
// are built with textContent, and a snippet is inserted as HTML only when it holds no tag but <mark>.
(function () {
  "use strict";

  const STRINGS = {
    en: {
      copy: "Copy", copied: "Copied", copyLabel: "Copy the code", copyFailed: "Selected: press Ctrl+C",
      instant: "Instant results", results: (n) => (n === 1 ? "1 result" : n + " results"),
      none: "No entry matches yet. Try fewer words, or press Enter for the full search.",
      didYouMean: "Did you mean", all: "All results", keys: "↓ ↑ choose · Enter open · Esc clear",
      pasteHint: "Tip: paste a whole error message or traceback.",
      tooLong: "Long text: press Enter to search it.", failed: "Instant results are unavailable: press Enter to search.",
      scrolls: "⇆ Wider than the screen: scroll sideways",
      pasted: (n, lines) => "Pasted " + n.toLocaleString("en") + " characters (" + lines + " lines): searched by its error.",
    },
    zh: {
      copy: "复制", copied: "已复制", copyLabel: "复制代码", copyFailed: "已选中：按 Ctrl+C 复制",
      instant: "即时结果", results: (n) => "共 " + n + " 条结果",
      none: "暂无匹配条目。试试更少的词，或按回车进行完整搜索。",
      didYouMean: "你是不是要找", all: "全部结果", keys: "↓ ↑ 选择 · 回车打开 · Esc 清空",
      pasteHint: "提示：可以直接粘贴完整的报错信息或 traceback。",
      tooLong: "文本较长：按回车进行搜索。", failed: "即时结果暂不可用：按回车搜索。",
      scrolls: "⇆ 内容比屏幕宽：可左右滚动",
      pasted: (n, lines) => "已粘贴 " + n + " 个字符（" + lines + " 行）：按其中的报错搜索。",
    },
  };
  const uiLang = document.body.getAttribute("data-ui-lang") === "zh" ? "zh" : "en";
  const T = STRINGS[uiLang];
  const root = document.documentElement;

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // ------------------------------------------------------------ theme toggle
  const STORE_KEY = "faq-theme";
  const systemDark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  function store(value) {
    try {
      if (value) window.localStorage.setItem(STORE_KEY, value);
      else window.localStorage.removeItem(STORE_KEY);
    } catch (e) { /* storage blocked: the choice lasts for this page only */ }
  }

  function effectiveTheme() {
    const chosen = root.getAttribute("data-theme");
    if (chosen === "dark" || chosen === "light") return chosen;
    return systemDark && systemDark.matches ? "dark" : "light";
  }

  const toggle = document.querySelector(".theme-toggle");
  if (toggle) {
    const sync = () => toggle.setAttribute("aria-pressed", String(effectiveTheme() === "dark"));
    toggle.hidden = false;
    sync();
    toggle.addEventListener("click", () => {
      const next = effectiveTheme() === "dark" ? "light" : "dark";
      const system = systemDark && systemDark.matches ? "dark" : "light";
      if (next === system) {  // back to following the system
        root.removeAttribute("data-theme");
        store(null);
      } else {
        root.setAttribute("data-theme", next);
        store(next);
      }
      sync();
    });
    if (systemDark && systemDark.addEventListener) systemDark.addEventListener("change", sync);
  }

  // ------------------------------------------------------------ copy buttons
  function copyText(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    return new Promise((resolve, reject) => {  // plain-HTTP intranets have no Clipboard API
      const buffer = el("textarea", "copy-buffer");
      buffer.value = text;
      buffer.setAttribute("readonly", "");
      document.body.appendChild(buffer);
      buffer.select();
      let ok = false;
      try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
      buffer.remove();
      if (ok) resolve(); else reject(new Error("copy refused"));
    });
  }

  function selectContents(node) {
    const range = document.createRange();
    range.selectNodeContents(node);
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
  }

  document.querySelectorAll("article pre, .answer pre").forEach((pre) => {
    const wrap = el("div", "code");
    pre.parentNode.insertBefore(wrap, pre);
    wrap.appendChild(pre);
    const button = el("button", "copy", T.copy);
    button.type = "button";
    button.setAttribute("aria-label", T.copyLabel);
    wrap.appendChild(button);
    let timer = 0;
    button.addEventListener("click", () => {
      const code = pre.querySelector("code") || pre;
      const text = code.textContent.replace(/\n$/, "");
      const say = (message) => {
        button.textContent = message;
        window.clearTimeout(timer);
        timer = window.setTimeout(() => { button.textContent = T.copy; }, 1800);
      };
      copyText(text).then(() => say(T.copied), () => { selectContents(code); say(T.copyFailed); });
    });
  });

  // ------------------------------------------------------------ wide code and tables: say that they scroll
  const hints = [];
  function markWide() {
    hints.splice(0).forEach((hint) => hint.remove());
    document.querySelectorAll("main pre, main table").forEach((box) => {
      const wide = box.scrollWidth > box.clientWidth + 1 && getComputedStyle(box).overflowX !== "visible";
      box.classList.toggle("scrolls", wide);
      if (!wide) return;
      const hint = el("p", "scroll-hint", T.scrolls);
      const after = box.parentNode.classList.contains("code") ? box.parentNode : box;
      after.parentNode.insertBefore(hint, after.nextSibling);
      hints.push(hint);
    });
  }
  markWide();
  let resized = 0;
  window.addEventListener("resize", () => { window.clearTimeout(resized); resized = window.setTimeout(markWide, 150); });

  // ------------------------------------------------------------ search box: "/" and instant results
  const form = document.querySelector("header.site form.search");
  if (!form) return;
  const input = form.elements.namedItem("q");
  const langSelect = form.elements.namedItem("lang");
  if (!input || !window.fetch) return;

  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) return;
    const target = event.target;
    if (target instanceof Element && target.closest("input, textarea, select, [contenteditable]")) return;
    event.preventDefault();
    input.focus();
    input.select();
  });

  const DELAY = 60;  // ms after the last keystroke: a pause between words, shorter than reading the results
  const MAX_URL = 6000;  // longer typed text goes through the form (Enter), not a GET per keystroke
  const MAX_PASTE = 65536;  // what the server reads of a pasted traceback or log
  const LONG_PASTE = 2000;  // a paste this long, or of several lines, is kept whole and posted
  const HAN = /[\u3400-\u9fff\uf900-\ufaff]/;
  const SNIPPET_OK = /^(?:[^<>]|<mark>|<\/mark>)*$/;

  const panel = el("div", "instant");
  panel.id = "instant-results";
  panel.hidden = true;
  panel.setAttribute("role", "region");
  panel.setAttribute("aria-label", T.instant);
  form.appendChild(panel);
  const live = el("p", "sr-only");  // announces the count to screen readers
  live.setAttribute("role", "status");
  form.appendChild(live);
  input.setAttribute("aria-controls", panel.id);

  const cache = new Map();
  let timer = 0;
  let controller = null;
  let sequence = 0;
  let shownKey = "";
  let pasted = null;  // a whole traceback or log pasted into the box: a text field cannot hold its line breaks
  let pastedField = null;
  let composing = false;  // an input method is composing (pinyin): nothing is searched until it commits
  let keepClosed = false;  // Esc closed the list: focusing the box again must not reopen it

  function close() {
    panel.hidden = true;
  }

  function links() {
    return Array.from(panel.querySelectorAll("a"));
  }

  function searchUrl(path, query, extra) {
    const params = new URLSearchParams(Object.assign({ q: query, lang: langSelect ? langSelect.value : "any" }, extra));
    return path + "?" + params.toString();
  }

  function setSnippet(node, snippet) {
    if (SNIPPET_OK.test(snippet)) {
      node.innerHTML = snippet;  // server-escaped text whose only markup is <mark>
      return;
    }
    // Anything else: keep the text and the highlights, drop every other tag.
    const parsed = document.createElement("template");
    parsed.innerHTML = snippet;  // inert: a template's content runs nothing and loads nothing
    parsed.content.childNodes.forEach((child) => {
      if (child.nodeName === "MARK") node.appendChild(el("mark", "", child.textContent));
      else node.appendChild(document.createTextNode(child.textContent));
    });
  }

  function render(key, query, data) {
    shownKey = key;
    panel.replaceChildren();
    const results = Array.isArray(data.results) ? data.results : [];
    if (results.length) {
      panel.appendChild(el("p", "i-status", T.results(data.total) + " · " + T.keys));
      const list = el("ol");
      results.forEach((hit) => {
        const item = el("li");
        item.lang = hit.lang === "zh" ? "zh-Hans" : "en";
        const link = el("a");
        // The entry marks what was searched (for a paste, the error it was read as).
        link.href = hit.url + "?hl=" + encodeURIComponent((data.error || query).slice(0, 200));
        link.appendChild(el("span", "i-title", hit.title));
        const where = [String(hit.lang).toUpperCase(), hit.document && hit.document.title]
          .concat(Array.isArray(hit.section) ? hit.section : []).filter(Boolean).join(" › ");
        const translated = (hit.translations || []).map((t) => "⇄ " + String(t.lang).toUpperCase()).join(" ");
        link.appendChild(el("span", "i-meta", translated ? where + "  " + translated : where));
        const snippet = el("span", "i-snippet");
        setSnippet(snippet, String(hit.snippet || ""));
        link.appendChild(snippet);
        item.appendChild(link);
        list.appendChild(item);
      });
      panel.appendChild(list);
    } else {
      const status = el("p", "i-status", T.none);
      if (data.suggestion) {
        status.appendChild(document.createTextNode(" " + T.didYouMean + " "));
        const fix = el("a", "", data.suggestion);
        fix.href = searchUrl("/search", data.suggestion);
        status.appendChild(fix);
        status.appendChild(document.createTextNode("?"));
      }
      panel.appendChild(status);
    }
    const foot = el("p", "i-foot");
    foot.appendChild(el("span", "", pasted === null ? T.pasteHint
      : T.pasted(pasted.length, pasted.split("\n").length)));
    const all = el("a", "", T.all + " →");
    all.href = searchUrl("/search", query);
    if (pasted !== null) all.addEventListener("click", (event) => { event.preventDefault(); form.submit(); });
    foot.appendChild(all);
    panel.appendChild(foot);
    panel.hidden = false;
    live.textContent = results.length ? T.results(data.total) : T.none;
    form.dispatchEvent(new CustomEvent("faq:instant", { detail: { query: query, total: data.total } }));
  }

  function message(text) {
    shownKey = "";
    panel.replaceChildren(el("p", "i-status", text));
    panel.hidden = false;
    live.textContent = text;
  }

  function keepPaste(text) {
    pasted = text.slice(0, MAX_PASTE);
    if (!pastedField) {
      pastedField = el("textarea");
      pastedField.hidden = true;
      pastedField.name = "q";
      form.appendChild(pastedField);
    }
    pastedField.value = pasted;
    input.removeAttribute("name");
    form.method = "post";  // a long text stays out of the URL
    const lines = pasted.split("\n").map((line) => line.trim()).filter(Boolean);
    input.value = lines.length ? lines[lines.length - 1] : "";  // a traceback ends with its error
  }

  function forgetPaste() {
    if (pasted === null) return;
    pasted = null;
    if (pastedField) { pastedField.remove(); pastedField = null; }
    input.name = "q";
    form.method = "get";
  }

  function request(query, prefer) {
    // Keystrokes are searched by words only: they must not wait for the model (the results page ranks by meaning too).
    const options = { limit: "10", prefer: prefer, mode: "lexical" };
    if (pasted !== null) {
      const body = Object.assign({ q: pasted, lang: langSelect ? langSelect.value : "any" }, options, { limit: 10 });
      return { key: "POST " + JSON.stringify(body), url: "/api/v1/search", init: {
        method: "POST", body: JSON.stringify(body), headers: { Accept: "application/json", "Content-Type": "application/json" } } };
    }
    const url = searchUrl("/api/v1/search", query, options);
    return { key: url, url: url, init: { headers: { Accept: "application/json" } } };
  }

  function run() {
    const query = input.value.trim();
    if (!query && pasted === null) { close(); return; }
    const prefer = HAN.test(pasted === null ? query : pasted) ? "zh" : uiLang;
    const asked = request(query, prefer);
    const key = asked.key;
    if (key === shownKey && !panel.hidden) return;
    if (asked.url.length > MAX_URL) { message(T.tooLong); return; }
    if (cache.has(key)) { render(key, query, cache.get(key)); return; }
    if (controller) controller.abort();
    controller = new AbortController();
    const mine = ++sequence;
    fetch(asked.url, Object.assign({ signal: controller.signal }, asked.init))
      .then((response) => (response.ok ? response.json() : Promise.reject(new Error(String(response.status)))))
      .then((data) => {
        if (cache.size > 50) cache.delete(cache.keys().next().value);
        cache.set(key, data);
        if (mine === sequence) render(key, query, data);
      })
      .catch((error) => {
        if (error && error.name === "AbortError") return;
        if (mine === sequence) message(T.failed);
      });
  }

  function schedule() {
    window.clearTimeout(timer);
    keepClosed = false;
    if (!input.value.trim() && pasted === null) {
      sequence++;
      if (controller) controller.abort();
      close();
      return;
    }
    timer = window.setTimeout(run, DELAY);
  }

  input.addEventListener("input", (event) => {
    if (event.isComposing || composing) return;  // pinyin on its way to a character is not a query
    forgetPaste();  // the reader edits what the box shows: that is the query now
    schedule();
  });
  input.addEventListener("compositionstart", () => { composing = true; window.clearTimeout(timer); });
  input.addEventListener("compositionend", () => { composing = false; forgetPaste(); schedule(); });
  input.addEventListener("paste", (event) => {
    const text = event.clipboardData ? event.clipboardData.getData("text/plain") : "";
    if (!text || (text.trim().indexOf("\n") < 0 && text.length <= LONG_PASTE)) return;
    event.preventDefault();
    keepPaste(text);
    schedule();
  });
  if (langSelect) langSelect.addEventListener("change", () => { if (input.value.trim() || pasted !== null) run(); });
  input.addEventListener("focus", () => {
    if (!keepClosed && shownKey && (input.value.trim() || pasted !== null)) panel.hidden = false;
  });

  input.addEventListener("keydown", (event) => {
    if (event.key === "ArrowDown" && !panel.hidden) {
      const first = links()[0];
      if (first) { event.preventDefault(); first.focus(); }
    } else if (event.key === "Escape") {
      if (input.value || !panel.hidden) {
        event.preventDefault();
        forgetPaste();
        input.value = "";
        sequence++;
        window.clearTimeout(timer);
        close();
        live.textContent = "";
      }
    }
  });

  panel.addEventListener("keydown", (event) => {
    const all = links();
    const at = all.indexOf(document.activeElement);
    if (event.key === "ArrowDown") {
      event.preventDefault();
      if (at >= 0 && at < all.length - 1) all[at + 1].focus();
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      if (at > 0) all[at - 1].focus(); else input.focus();
    } else if (event.key === "Escape") {
      event.preventDefault();
      close();
      keepClosed = true;  // back in the box with the query kept, the list stays closed
      input.focus();
    } else if (event.key.length === 1 && !event.ctrlKey && !event.metaKey && !event.altKey && event.key !== " ") {
      input.focus();  // typing goes on in the box
    }
  });

  // Close when the focus or a click leaves the search form.
  form.addEventListener("focusout", (event) => {
    if (!event.relatedTarget || !form.contains(event.relatedTarget)) window.setTimeout(() => {
      if (!form.contains(document.activeElement)) close();
    }, 0);
  });
  document.addEventListener("click", (event) => {
    if (event.target instanceof Node && !form.contains(event.target)) close();
  });
})();
