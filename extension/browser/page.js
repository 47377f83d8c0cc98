/**
 * Functions the service worker runs inside a page through chrome.scripting (the extension's isolated
 * world: the page's own scripts cannot see or change what is kept here). Each one is serialised on
 * its own, so none may use anything outside its body. Refs live in `globalThis.__engineRefs` of the
 * document they were taken on: an element keeps its ref across snapshots while it stays in the page,
 * and a ref whose element left (or whose document was replaced) is stale. Numbers go on across the
 * tab's documents (`issued`, the tab's next number, kept by the service worker), so a ref of an
 * earlier page never names an element of this one; the worker tells a ref never given (at or past
 * `issued`) from a stale one.
 */

/**
 * The outline with [eN] refs; open shadow roots and same-origin iframes included. Scrolled down, it
 * starts at the viewport (what lies wholly above is counted, not shown). With `query`, only the
 * elements of the whole page whose name or text holds it, each with a ref and a line of context.
 */
export function snapshotPage(interactiveOnly, maxChars, query, issued) {
  const R = (globalThis.__engineRefs ??= { byRef: new Map(), byEl: new WeakMap(), next: 1 });
  R.next = Math.max(R.next, issued || 1);
  const INTERACTIVE = new Set(['link', 'button', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'slider', 'spinbutton', 'switch', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'option', 'treeitem']);
  // Roles whose name is their content: the outline does not repeat that content below them.
  const LEAF = new Set(['link', 'button', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'slider', 'spinbutton', 'switch', 'tab', 'menuitem', 'option', 'heading', 'img']);
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title']);
  const LANDMARK = { nav: 'navigation', main: 'main', header: 'banner', footer: 'contentinfo', aside: 'complementary', form: 'form', ul: 'list', ol: 'list', li: 'listitem', table: 'table', tr: 'row', td: 'cell', th: 'columnheader', dialog: 'dialog' };
  const lines = [];
  let chars = 0;
  let omitted = 0;
  let above = 0;
  const q = String(query || '').replace(/\s+/g, ' ').trim().toLowerCase();
  // Scrolled down: the top document's elements wholly above the viewport are left out (counted).
  const fromViewport = !q && window.scrollY > 0;
  const clip = (s, n) => { s = String(s ?? '').replace(/\s+/g, ' ').trim(); return s.length > n ? s.slice(0, n - 1) + '…' : s; };
  const push = (depth, line) => {
    const s = '  '.repeat(depth) + '- ' + line;
    if (chars + s.length + 1 > maxChars) return void omitted++;
    lines.push(s);
    chars += s.length + 1;
  };
  function roleOf(el) {
    const explicit = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (explicit && explicit !== 'presentation' && explicit !== 'none') return explicit;
    const tag = el.localName;
    if ((tag === 'a' || tag === 'area') && el.hasAttribute('href')) return 'link';
    if (tag === 'button' || tag === 'summary') return 'button';
    if (tag === 'input') {
      const t = (el.getAttribute('type') || 'text').toLowerCase();
      if (t === 'hidden') return '';
      if (['button', 'submit', 'reset', 'image', 'file'].includes(t)) return 'button';
      if (t === 'checkbox' || t === 'radio') return t;
      if (t === 'range') return 'slider';
      if (t === 'number') return 'spinbutton';
      if (t === 'search') return 'searchbox';
      return 'textbox';
    }
    if (tag === 'textarea') return 'textbox';
    if (tag === 'select') return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
    if (/^h[1-6]$/.test(tag)) return 'heading';
    if (tag === 'img') return el.getAttribute('alt') ? 'img' : '';
    if (el.isContentEditable && el.getAttribute('contenteditable') !== null) return 'textbox';
    return LANDMARK[tag] || '';
  }
  function nameOf(el, role) {
    const aria = el.getAttribute('aria-label');
    if (aria) return clip(aria, 100);
    const by = el.getAttribute('aria-labelledby');
    if (by) {
      const root = el.getRootNode();
      const text = by.split(/\s+/).map((id) => (root.getElementById ? root.getElementById(id) : el.ownerDocument.getElementById(id))?.textContent || '').join(' ');
      if (text.trim()) return clip(text, 100);
    }
    const tag = el.localName;
    if (tag === 'input' || tag === 'textarea' || tag === 'select') {
      const t = (el.getAttribute('type') || '').toLowerCase();
      if (tag === 'input' && ['button', 'submit', 'reset'].includes(t)) return clip(el.value || (t === 'submit' ? 'Submit' : t === 'reset' ? 'Reset' : ''), 100);
      if (tag === 'input' && t === 'image') return clip(el.getAttribute('alt') || '', 100);
      const labels = el.labels ? [...el.labels].map((l) => l.textContent).join(' ') : '';
      if (labels.trim()) return clip(labels, 100);
      return clip(el.getAttribute('placeholder') || el.getAttribute('title') || '', 100);
    }
    if (tag === 'img') return clip(el.getAttribute('alt'), 100);
    if (LEAF.has(role) || role === 'listitem' || role === 'cell' || role === 'columnheader') return clip(el.textContent || el.getAttribute('title'), 100);
    return clip(el.getAttribute('title') || '', 100);
  }
  function refOf(el) {
    let ref = R.byEl.get(el);
    if (!ref) {
      ref = 'e' + R.next++;
      R.byEl.set(el, ref);
      R.byRef.set(ref, new WeakRef(el));
    }
    return ref;
  }
  function details(el, role) {
    const out = [];
    if (role === 'heading') out.push(`level=${el.localName.slice(1) || el.getAttribute('aria-level') || ''}`);
    if (role === 'checkbox' || role === 'radio' || role === 'switch') out.push(el.checked || el.getAttribute('aria-checked') === 'true' ? 'checked' : 'unchecked');
    if ((role === 'textbox' || role === 'searchbox' || role === 'spinbutton') && 'value' in el && el.value && el.type !== 'password') out.push(`value="${clip(el.value, 60)}"`);
    if (role === 'combobox' && el.localName === 'select') out.push(`selected="${clip(el.selectedOptions[0]?.textContent, 60)}"`, `options: ${clip([...el.options].map((o) => o.textContent.trim()).join(', '), 200)}`);
    if (el.disabled || el.getAttribute('aria-disabled') === 'true') out.push('disabled');
    return out.length ? ` (${out.join(', ')})` : '';
  }
  function childrenOf(node) {
    if (node.localName === 'slot') {
      const assigned = node.assignedNodes({ flatten: true });
      return assigned.length ? assigned : [...node.childNodes];
    }
    if (node.shadowRoot) return [...node.shadowRoot.childNodes];
    return [...node.childNodes];
  }
  function walk(node, depth) {
    for (const child of childrenOf(node)) {
      if (child.nodeType === 3) {
        if (q) {
          const text = clip(child.data, 200);
          if (text.toLowerCase().includes(q) && child.parentElement) found(child.parentElement, `text "${text.replace(/"/g, '\\"')}"`, text);
        } else if (!interactiveOnly) {
          const text = clip(child.data, 200);
          if (text) push(depth, `text "${text}"`);
        }
        continue;
      }
      if (child.nodeType !== 1) continue;
      const el = child;
      if (SKIP.has(el.localName) || el.hidden || el.getAttribute('aria-hidden') === 'true') continue;
      const style = el.ownerDocument.defaultView.getComputedStyle(el);
      if (style.display === 'none') continue;
      if (fromViewport && el.ownerDocument === document) {
        const r = el.getBoundingClientRect();
        if (r.bottom <= 0 && (r.height > 0 || r.top < 0)) { above++; continue; }
      }
      if (el.localName === 'iframe') {
        let doc = null;
        try { doc = el.contentDocument; } catch { doc = null; }
        if (!doc || !doc.body) { if (!interactiveOnly && !q) push(depth, `iframe "${clip(el.title || el.src, 80)}" (another site: not shown)`); continue; }
        if (!q) push(depth, `iframe "${clip(el.title || doc.title, 80)}"`);
        walk(doc.body, depth + 1);
        continue;
      }
      const role = roleOf(el);
      const interactive = INTERACTIVE.has(role) && style.visibility !== 'hidden';
      let next = depth;
      if (q) {
        const name = role ? nameOf(el, role) : '';
        // Elements named by their own content or label; a list item's or a cell's text matches as text.
        if ((LEAF.has(role) || INTERACTIVE.has(role)) && style.visibility !== 'hidden' && name.toLowerCase().includes(q)) {
          found(el, `${role} "${name.replace(/"/g, '\\"')}"${details(el, role)}`, name);
          if (LEAF.has(role) && !el.shadowRoot) continue;
        }
        walk(el, depth);
        continue;
      }
      if (role && (interactive || (!interactiveOnly && style.visibility !== 'hidden'))) {
        const name = nameOf(el, role);
        push(depth, `${role}${name ? ` "${name.replace(/"/g, '\\"')}"` : ''}${details(el, role)}${interactive ? ` [${refOf(el)}]` : ''}`);
        next = depth + 1;
        if (LEAF.has(role) && !el.shadowRoot) continue;
      }
      walk(el, next);
    }
  }
  /** A match: the element's line with its ref, and the text around it with the refs there (the row it sits in). */
  function found(el, line, matched) {
    let around = el;
    for (let i = 0; i < 4 && around.parentElement && clip(around.textContent, 400).length <= matched.length + 2; i++) around = around.parentElement;
    const text = clip(around.textContent, 160);
    const near = [...around.querySelectorAll('a[href], button, input, select, textarea, [role=button], [role=link]')].filter((x) => x !== el && !x.contains(el)).slice(0, 3);
    const refs = near.map((x) => `${roleOf(x) || x.localName} "${clip(nameOf(x, roleOf(x)), 40).replace(/"/g, '\\"')}" [${refOf(x)}]`);
    const context = text.length > matched.length + 2 ? ` in "${text.replace(/"/g, '\\"')}"` : '';
    push(0, `${line} [${refOf(el)}]${context}${refs.length ? `; near ${refs.join(', ')}` : ''}`);
  }
  walk(document.body || document.documentElement, 0);
  const title = `page "${clip(document.title, 120)}"`;
  const reach = 'browser_snapshot with query (text to look for) finds any element of the whole page with its ref';
  return { text: q ? matches() : outline(), next: R.next };

  function matches() {
    const total = lines.length + omitted;
    if (!total) return `${title}: nothing in the page (all frames and open shadow roots) holds "${clip(query, 100)}"; try a shorter or different text, or browser_snapshot without query for the outline`;
    return `${title}: ${total} match${total === 1 ? '' : 'es'} for "${clip(query, 100)}" in the whole page (all frames and open shadow roots)\n${lines.join('\n')}` + (omitted ? `\n… ${omitted} more match${omitted === 1 ? '' : 'es'} not shown (capped at ${maxChars} characters; make the query longer or more precise)` : '');
  }
  function outline() {
    const max = Math.max(0, document.documentElement.scrollHeight - window.innerHeight);
    const start = fromViewport ? ` from the viewport down (scrolled to ${Math.round(window.scrollY)} of ${max} px; ${above} element${above === 1 ? '' : 's'} above not shown: browser_scroll up, or ${reach})` : '';
    const head = `${title}${interactiveOnly ? ' (interactive elements only)' : ''}${start}`;
    return head + '\n' + lines.join('\n') + (omitted ? `\n… ${omitted} more element${omitted === 1 ? '' : 's'} not shown below (the outline is capped at ${maxChars} characters; ${reach}, or browser_scroll down: a snapshot after a scroll starts at the viewport)` : '');
  }
}

/**
 * Milliseconds since the document last changed (a MutationObserver, set up on the first call: then
 * 0). `restart`: count from now (an action begins: quiet from before it says nothing).
 */
export function quietFor(restart) {
  let W = globalThis.__engineChanges;
  if (!W || W.doc !== document) {
    const watch = (W = globalThis.__engineChanges = { doc: document, at: performance.now() });
    new MutationObserver(() => { watch.at = performance.now(); }).observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
  } else if (restart) {
    W.at = performance.now();
  }
  return performance.now() - W.at;
}

/** Where a ref's element is (viewport coordinates of the top page, iframes included), after scrolling it into view. */
export function locateRef(ref) {
  const el = globalThis.__engineRefs?.byRef.get(ref)?.deref();
  if (!el || !el.isConnected) return { stale: true };
  el.scrollIntoView({ block: 'center', inline: 'center', behavior: 'instant' });
  const r = el.getBoundingClientRect();
  let x = r.left + r.width / 2;
  let y = r.top + r.height / 2;
  let win = el.ownerDocument.defaultView;
  while (win && win.frameElement) {
    const frame = win.frameElement.getBoundingClientRect();
    x += frame.left + win.frameElement.clientLeft;
    y += frame.top + win.frameElement.clientTop;
    win = win.parent;
  }
  const label = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('placeholder') || el.localName).replace(/\s+/g, ' ').trim().slice(0, 60);
  return { x, y, label: `${ref} ("${label}")`, empty: r.width === 0 || r.height === 0 };
}

/** Focuses the field to type into (by ref, else the focused element), or says why not: never a password, key or card field. */
export function prepareType(ref, clear) {
  let el;
  if (ref) {
    el = globalThis.__engineRefs?.byRef.get(ref)?.deref();
    if (!el || !el.isConnected) return { stale: true };
  } else {
    el = document.activeElement;
    while (el && el.shadowRoot && el.shadowRoot.activeElement) el = el.shadowRoot.activeElement;
    while (el && el.localName === 'iframe') {
      try { el = el.contentDocument.activeElement; } catch { break; }
    }
    if (!el || el === document.body) return { error: 'no field has focus; give the ref of a field from browser_snapshot' };
  }
  const tag = el.localName;
  const type = (el.getAttribute('type') || 'text').toLowerCase();
  const labels = el.labels ? [...el.labels].map((l) => l.textContent).join(' ') : '';
  const hint = [el.getAttribute('name'), el.id, el.getAttribute('aria-label'), el.getAttribute('placeholder'), labels].join(' ');
  const autocomplete = (el.getAttribute('autocomplete') || '').toLowerCase();
  if (tag === 'input' && type === 'password') return { refused: 'a password field' };
  if (/\b(current-password|new-password|one-time-code|cc-number|cc-csc|cc-exp|cc-exp-month|cc-exp-year)\b/.test(autocomplete)) return { refused: `a field for ${autocomplete}` };
  if (/pass(word|code|phrase)|\bpin\b|api[\s_-]?key|secret|\btoken\b|card[\s_-]?(number|no\b)|cc[\s_-]?num|\bcvv|\bcvc|security code/i.test(hint)) return { refused: `a field that asks for a secret ("${hint.replace(/\s+/g, ' ').trim().slice(0, 60)}")` };
  const textual = (tag === 'input' && !['button', 'submit', 'reset', 'image', 'file', 'checkbox', 'radio', 'range', 'color', 'hidden'].includes(type)) || tag === 'textarea' || el.isContentEditable;
  if (!textual) return { error: `${ref || 'the focused element'} is a ${tag}${tag === 'input' ? ` of type ${type}` : ''}, not a field you can type into` };
  el.scrollIntoView({ block: 'center', behavior: 'instant' });
  el.focus();
  if ('value' in el && typeof el.setSelectionRange === 'function' && !['email', 'number'].includes(type)) {
    if (clear) el.setSelectionRange(0, el.value.length);
    else el.setSelectionRange(el.value.length, el.value.length);
  } else if ('select' in el && clear) {
    el.select();
  } else if (el.isContentEditable) {
    const range = el.ownerDocument.createRange();
    range.selectNodeContents(el);
    if (!clear) range.collapse(false);
    const sel = el.ownerDocument.getSelection();
    sel.removeAllRanges();
    sel.addRange(range);
  }
  const label = (el.getAttribute('aria-label') || labels || el.getAttribute('placeholder') || el.getAttribute('name') || tag).replace(/\s+/g, ' ').trim().slice(0, 60);
  return { label: `${ref || 'the focused field'} ("${label}")` };
}

/** Chooses an option by value or visible label. */
export function selectOption(ref, value) {
  const el = globalThis.__engineRefs?.byRef.get(ref)?.deref();
  if (!el || !el.isConnected) return { stale: true };
  if (el.localName !== 'select') return { error: `${ref} is a ${el.localName}, not a select; browser_click it instead` };
  const options = [...el.options];
  const option = options.find((o) => o.value === value) || options.find((o) => o.textContent.trim() === value) || options.find((o) => o.textContent.trim().toLowerCase() === String(value).toLowerCase());
  if (!option) return { error: `${ref} has no option "${value}"; its options are ${options.map((o) => `"${o.textContent.trim()}"`).join(', ').slice(0, 300)}` };
  el.value = option.value;
  option.selected = true;
  el.dispatchEvent(new Event('input', { bubbles: true }));
  el.dispatchEvent(new Event('change', { bubbles: true }));
  return { label: `selected "${option.textContent.trim()}" (value "${option.value}") in ${ref}` };
}

/** Scrolls by dy or brings a ref into view; says where the page is. */
export function scrollPage(ref, dy) {
  if (ref) {
    const el = globalThis.__engineRefs?.byRef.get(ref)?.deref();
    if (!el || !el.isConnected) return { stale: true };
    el.scrollIntoView({ block: 'center', behavior: 'instant' });
  } else {
    window.scrollBy({ top: Number(dy) || 0, behavior: 'instant' });
  }
  const max = Math.max(0, document.documentElement.scrollHeight - window.innerHeight);
  return { label: `scrolled to ${Math.round(window.scrollY)} of ${max} px${ref ? ` (${ref} in view)` : ''}` };
}

/** Whether text is on the page (its own text, open shadow roots and same-origin iframes). */
export function pageHasText(text) {
  const seen = (root) => {
    if ((root.body ? root.body.innerText : root.textContent || '').includes(text)) return true;
    for (const el of root.querySelectorAll('*')) {
      if (el.shadowRoot && seen(el.shadowRoot)) return true;
      if (el.localName === 'iframe') {
        try { if (el.contentDocument && seen(el.contentDocument)) return true; } catch { /* another site */ }
      }
    }
    return false;
  };
  return seen(document);
}
