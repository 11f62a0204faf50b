// Building the page. Stored text (memories, titles, tags, slot contents, OCR text) reaches the
// screen only through `el`, which makes text nodes and attributes, never HTML, and links only
// inside the viewer (`#/…`); the helpers here all go through it.

import { authorization } from "./api.js";

/** Only links inside the viewer: anything else (javascript:, data:, other sites) goes home. */
export function safeHref(href) {
  return typeof href === "string" && href.startsWith("#/") ? href : "#/";
}

/**
 * An element with attributes and children. Children are nodes or text (never parsed as
 * HTML); `on…` properties are event listeners; `false`, `null` and `undefined` are skipped.
 */
export function el(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (key === "class") node.className = value;
    else if (key === "href") node.setAttribute("href", safeHref(value));
    else if (key === "value") node.value = value;
    else node.setAttribute(key, value === true ? "" : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function when(timestamp) {
  if (!timestamp) return "";
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? String(timestamp) : date.toLocaleString();
}

export function day(timestamp) {
  return String(timestamp ?? "").slice(0, 10);
}

/** Characters as the server counts them (Unicode scalar values, not UTF-16 units). */
export function characters(text) {
  return [...text].length;
}

export function headline(memory) {
  if (memory.title) return memory.title;
  const line = memory.content.split("\n", 1)[0];
  return line.length > 90 ? `${line.slice(0, 90)}…` : line;
}

/** `text` with each occurrence of `words` marked (case-insensitive). */
export function marked(text, words) {
  const wanted = (words ?? []).filter((w) => w.length > 0).map((w) => w.toLowerCase());
  if (wanted.length === 0) return [text];
  const lower = text.toLowerCase();
  const parts = [];
  let at = 0;
  while (at < text.length) {
    let next = -1;
    let length = 0;
    for (const word of wanted) {
      const found = lower.indexOf(word, at);
      if (found !== -1 && (next === -1 || found < next)) {
        next = found;
        length = word.length;
      }
    }
    if (next === -1) break;
    parts.push(text.slice(at, next), el("mark", {}, text.slice(next, next + length)));
    at = next + length;
  }
  parts.push(text.slice(at));
  return parts;
}

/** The part of `text` around its first marked word, at most about 300 characters. */
export function snippet(text, words) {
  const lower = text.toLowerCase();
  const first = Math.min(
    ...(words ?? []).map((w) => lower.indexOf(w.toLowerCase())).filter((i) => i >= 0),
  );
  const start = Number.isFinite(first) ? Math.max(0, first - 100) : 0;
  const cut = text.slice(start, start + 300);
  return `${start > 0 ? "…" : ""}${cut}${start + 300 < text.length ? "…" : ""}`;
}

export function tagList(tags) {
  if (!tags?.length) return null;
  return el("ul", { class: "tags", "aria-label": "Tags" }, tags.map((t) => el("li", {}, t)));
}

export function failure(error) {
  return el("p", { class: "alert", role: "alert" }, error.message);
}

/** A thumbnail fetched with the token and shown from a blob: URL. */
export function thumbnail(imageId, alt) {
  const img = el("img", { alt, loading: "lazy" });
  fetch(`/v1/images/${encodeURIComponent(imageId)}/thumbnail`, { headers: authorization() })
    .then((response) => (response.ok ? response.blob() : null))
    .then((blob) => {
      if (blob) img.src = URL.createObjectURL(blob);
    })
    .catch(() => {});
  return img;
}

/** A small form that reopens `route` for the project typed (empty: none). */
export function projectPicker(route, project, hint) {
  return addressForm(
    route,
    {},
    el("input", { name: "project", value: project, placeholder: hint, "aria-label": "Project" }),
    el("button", { type: "submit" }, "Show"),
  );
}

/**
 * A form that, sent, opens `route` with its named fields as the address's parameters (trimmed;
 * a checked box is `1`; empty ones left out), so the view it opens can be bookmarked.
 */
export function addressForm(route, props, ...children) {
  const send = (event) => {
    event.preventDefault();
    const next = new URLSearchParams();
    for (const field of event.target.querySelectorAll("input[name], select[name]")) {
      const value = field.type === "checkbox" ? (field.checked ? "1" : "") : field.value.trim();
      if (value) next.set(field.name, value);
    }
    const query = next.toString();
    location.hash = query ? `${route}?${query}` : route;
  };
  return el("form", { class: "row", ...props, onsubmit: send }, ...children);
}

/** Shows the current address's view again (after a change the view should reflect). */
export function refresh() {
  window.dispatchEvent(new HashChangeEvent("hashchange"));
}
