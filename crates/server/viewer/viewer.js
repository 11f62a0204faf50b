// cairn's web viewer: a small page over the REST API under /v1, with no library and no build.
//
// The page is one view at a time, chosen by the address's hash (#/, #/memory/ID, #/slots …),
// so every view can be bookmarked and the back button works. Each view asks the API for what
// it shows and answers the API's errors as any client would see them.
//
// Stored text (memories, titles, tags, slot contents, OCR text) reaches the screen only as
// text: every element is built by `el`, which sets text nodes and attributes, never HTML, and
// the only links it makes point inside the viewer (`#/…`). The server's Content-Security-Policy
// forbids inline script besides.
//
// The token, when the server has one, is asked once and kept in this tab's session storage;
// thumbnails are fetched with it and shown from blob: URLs.

const TOKEN_KEY = "cairn.token";
const main = document.getElementById("main");
const signOut = document.getElementById("sign-out");

// ---------- talking to the API ----------

/** An answer of the API that was not a success, with its status and JSON error. */
class ApiError extends Error {
  constructor(status, error) {
    super(error?.message ?? `the server answered ${status}`);
    this.status = status;
    this.code = error?.code;
    this.field = error?.field;
  }
}

function authorization() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  return token ? { Authorization: `Bearer ${token}` } : {};
}

/** `method path` with an optional JSON body; the JSON answer, or an ApiError. */
async function call(method, path, body) {
  const headers = authorization();
  const init = { method, headers };
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data?.error);
  return data;
}

/** `/v1/...?query` from an object, leaving out empty values. */
function path(base, query = {}) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "" && value !== false) {
      params.set(key, String(value));
    }
  }
  const text = params.toString();
  return text ? `${base}?${text}` : base;
}

// ---------- building the page ----------

/** Only links inside the viewer: anything else (javascript:, data:, other sites) goes home. */
function safeHref(href) {
  return typeof href === "string" && href.startsWith("#/") ? href : "#/";
}

/**
 * An element with attributes and children. Children are nodes or text (never parsed as
 * HTML); `on…` properties are event listeners; `false`, `null` and `undefined` are skipped.
 */
function el(tag, props = {}, ...children) {
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

/**
 * Puts `nodes` (nodes, text or lists of them; empty values skipped) in place of the view and
 * focuses its `autofocus` field, if any.
 */
function show(nodes) {
  main.replaceChildren(el("div", { class: "view" }, nodes));
  main.querySelector("[autofocus]")?.focus();
}

function when(timestamp) {
  if (!timestamp) return "";
  const date = new Date(timestamp);
  return Number.isNaN(date.getTime()) ? String(timestamp) : date.toLocaleString();
}

function day(timestamp) {
  return String(timestamp ?? "").slice(0, 10);
}

/** Characters as the server counts them (Unicode scalar values, not UTF-16 units). */
function characters(text) {
  return [...text].length;
}

function headline(memory) {
  if (memory.title) return memory.title;
  const line = memory.content.split("\n", 1)[0];
  return line.length > 90 ? `${line.slice(0, 90)}…` : line;
}

/** `text` with each occurrence of `words` marked (case-insensitive). */
function marked(text, words) {
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
function snippet(text, words) {
  const lower = text.toLowerCase();
  const first = Math.min(
    ...(words ?? []).map((w) => lower.indexOf(w.toLowerCase())).filter((i) => i >= 0),
  );
  const start = Number.isFinite(first) ? Math.max(0, first - 100) : 0;
  const cut = text.slice(start, start + 300);
  return `${start > 0 ? "…" : ""}${cut}${start + 300 < text.length ? "…" : ""}`;
}

function tagList(tags) {
  if (!tags?.length) return null;
  return el("ul", { class: "tags", "aria-label": "Tags" }, tags.map((t) => el("li", {}, t)));
}

function failure(error) {
  return el("p", { class: "alert", role: "alert" }, error.message);
}

/** A thumbnail fetched with the token and shown from a blob: URL. */
function thumbnail(imageId, alt) {
  const img = el("img", { alt, loading: "lazy" });
  fetch(`/v1/images/${encodeURIComponent(imageId)}/thumbnail`, { headers: authorization() })
    .then((response) => (response.ok ? response.blob() : null))
    .then((blob) => {
      if (blob) img.src = URL.createObjectURL(blob);
    })
    .catch(() => {});
  return img;
}

// ---------- signing in ----------

function loginView(refused) {
  const input = el("input", {
    type: "password",
    id: "token",
    name: "token",
    autocomplete: "current-password",
    required: true,
    autofocus: true,
    "aria-label": "Token",
  });
  const form = el(
    "form",
    {
      class: "row",
      onsubmit: (event) => {
        event.preventDefault();
        sessionStorage.setItem(TOKEN_KEY, input.value.trim());
        render();
      },
    },
    input,
    el("button", { type: "submit", class: "primary" }, "Sign in"),
  );
  return [
    el("h1", {}, "Sign in"),
    el(
      "p",
      {},
      "This server asks for its token (the one given to cairn serve with --token or CAIRN_TOKEN). ",
      "It is kept in this tab only.",
    ),
    refused ? el("p", { class: "alert", role: "alert" }, "That token was refused.") : null,
    form,
  ];
}

// ---------- search ----------

const MODES = ["", "lexical", "fuzzy", "semantic", "hybrid"];
const CATEGORIES = ["", "decision", "preference", "fact", "bugfix", "discovery", "pattern", "config", "entity", "other"];

/** The API's filter parameters from the view's address: no project means every project. */
function filters(params) {
  const project = params.get("project") ?? "";
  return {
    project,
    all_projects: !project,
    category: params.get("category") ?? "",
    tags: params.get("tags") ?? "",
  };
}

async function searchView(params) {
  const query = params.get("q") ?? "";
  const explain = params.get("explain") === "1";
  const box = el("input", {
    type: "search",
    name: "q",
    value: query,
    placeholder: "Search memories (press / to come back here)",
    "aria-label": "Search memories",
  });
  const mode = el(
    "select",
    { name: "mode", "aria-label": "Mode" },
    MODES.map((m) =>
      el("option", { value: m, selected: m === (params.get("mode") ?? "") }, m || "default mode"),
    ),
  );
  const project = el("input", {
    name: "project",
    value: params.get("project") ?? "",
    placeholder: "project (all)",
    "aria-label": "Project",
  });
  const category = el(
    "select",
    { name: "category", "aria-label": "Category" },
    CATEGORIES.map((c) => el("option", { value: c, selected: c === (params.get("category") ?? "") }, c || "any category")),
  );
  const tags = el("input", {
    name: "tags",
    value: params.get("tags") ?? "",
    placeholder: "tags (all of, comma separated)",
    "aria-label": "Tags",
  });
  const explainBox = el("input", { type: "checkbox", name: "explain", checked: explain });
  const form = el(
    "form",
    {
      class: "row",
      role: "search",
      onsubmit: (event) => {
        event.preventDefault();
        const next = new URLSearchParams();
        for (const [key, value] of [
          ["q", box.value.trim()],
          ["mode", mode.value],
          ["project", project.value.trim()],
          ["category", category.value],
          ["tags", tags.value.trim()],
          ["explain", explainBox.checked ? "1" : ""],
        ]) {
          if (value) next.set(key, value);
        }
        location.hash = `#/?${next}`;
      },
    },
    box,
    mode,
    project,
    category,
    tags,
    el("label", { class: "check" }, explainBox, "explain"),
    el("button", { type: "submit", class: "primary" }, "Search"),
  );
  const results = el("section", { "aria-live": "polite" });
  const view = [el("h1", {}, "Search"), form, results];
  if (!query) {
    box.setAttribute("autofocus", "");
    results.append(await recentMemories(params));
    return view;
  }
  const found = await call(
    "GET",
    path("/v1/search", {
      query,
      mode: params.get("mode"),
      ...filters(params),
      limit: 20,
    }),
  );
  const words = found.matched_words ?? [];
  results.append(
    ...(found.notices ?? []).map((n) => el("p", { class: "notice" }, n)),
    el("p", { class: "meta" }, `${found.results.length} found · ${found.mode}`),
    el(
      "ol",
      { class: "results" },
      found.results.map((hit) => hitCard(hit, words, explain)),
    ),
  );
  return view;
}

function hitCard(hit, words, explain) {
  const m = hit.memory;
  return el(
    "li",
    { class: "card hit" },
    el("a", { class: "title", href: `#/memory/${m.id}` }, marked(headline(m), words)),
    el("div", { class: "meta" }, `${m.category} · ${m.project ?? "global"} · ${when(m.created_at)}`),
    el("p", { class: "snippet" }, marked(snippet(m.content, words), words)),
    tagList(m.tags),
    hit.annotations?.length
      ? el("ul", { class: "annotations" }, hit.annotations.map((a) => el("li", {}, a)))
      : null,
    explain ? explainTable(hit) : null,
  );
}

function explainTable(hit) {
  return el(
    "table",
    { class: "explain" },
    el("caption", { class: "meta" }, `score ${hit.score.toFixed(4)}`),
    el("tr", {}, el("th", {}, "signal"), el("th", {}, "rank"), el("th", {}, "raw score")),
    hit.signals.map((s) =>
      el("tr", {}, el("td", {}, s.signal), el("td", {}, s.rank), el("td", {}, s.raw.toFixed(4))),
    ),
    Object.entries(hit.boosts ?? {}).map(([name, value]) =>
      el("tr", {}, el("td", {}, `boost: ${name}`), el("td", {}, ""), el("td", {}, value.toFixed(4))),
    ),
  );
}

async function recentMemories(params) {
  const listing = await call("GET", path("/v1/memories", { limit: 20, ...filters(params) }));
  return el(
    "div",
    {},
    el("h2", {}, `Latest memories (${listing.total} in all)`),
    el(
      "ol",
      { class: "results" },
      listing.memories.map((m) => hitCard({ memory: m, signals: [], score: 0 }, [], false)),
    ),
  );
}

// ---------- one memory ----------

async function memoryView(id) {
  const memory = await call("GET", `/v1/memories/${encodeURIComponent(id)}`);
  const history = await call("GET", `/v1/memories/${encodeURIComponent(id)}?history=true`);
  const status = el("p", { role: "status", class: "meta" });
  return [
    el("h1", {}, headline(memory)),
    el(
      "p",
      { class: "meta" },
      `${memory.category} · ${memory.project ?? "global"} · importance ${memory.importance} · `,
      `written ${when(memory.created_at)}, changed ${when(memory.updated_at)} · ${memory.handle}`,
    ),
    el("div", { class: "card content" }, memory.content),
    tagList(memory.tags),
    memory.images?.length
      ? el(
          "div",
          { class: "gallery" },
          memory.images.map((image) =>
            el(
              "figure",
              {},
              thumbnail(image.id, "image shown by this memory"),
              image.text ? el("figcaption", { class: "ocr" }, image.text) : null,
            ),
          ),
        )
      : null,
    relationsSection(memory),
    editForm(memory, status),
    status,
    historySection(history),
  ];
}

function relationsSection(memory) {
  const relations = memory.relations ?? [];
  if (relations.length === 0) return null;
  return el(
    "section",
    {},
    el("h2", {}, "Relations"),
    el(
      "ul",
      {},
      relations.map((r) => {
        const other = r.source === memory.id ? r.target : r.source;
        const title = r.source === memory.id ? r.target_title : r.source_title;
        return el(
          "li",
          {},
          `${r.verdict?.relation ?? "pending"} (${r.source === memory.id ? "this → other" : "other → this"}): `,
          el("a", { href: `#/memory/${other}` }, title ?? other),
          r.verdict?.reason ? el("span", { class: "meta" }, ` — ${r.verdict.reason}`) : null,
        );
      }),
    ),
  );
}

function editForm(memory, status) {
  const title = el("input", { name: "title", value: memory.title ?? "", "aria-label": "Title" });
  const content = el("textarea", { name: "content", value: memory.content, "aria-label": "Content" });
  const tags = el("input", {
    name: "tags",
    value: (memory.tags ?? []).join(", "),
    "aria-label": "Tags, comma separated",
  });
  const form = el(
    "form",
    {
      class: "card",
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const answer = await call("PATCH", `/v1/memories/${memory.id}`, {
            title: title.value,
            content: content.value,
            tags: tags.value.split(",").map((t) => t.trim()).filter(Boolean),
          });
          status.textContent = `Saved (${answer.status}).`;
          render();
        } catch (error) {
          status.replaceChildren(failure(error));
        }
      },
    },
    el("h2", {}, "Edit"),
    el("label", { class: "field" }, "Title", title),
    el("label", { class: "field" }, "Content", content),
    el("label", { class: "field" }, "Tags", tags),
    el(
      "div",
      { class: "row" },
      el("button", { type: "submit", class: "primary" }, "Save"),
      el(
        "button",
        {
          type: "button",
          class: "danger",
          onclick: async () => {
            if (!confirm("Forget this memory? It is hidden from every search and list.")) return;
            try {
              await call("DELETE", `/v1/memories/${memory.id}`);
              location.hash = "#/";
            } catch (error) {
              status.replaceChildren(failure(error));
            }
          },
        },
        "Forget",
      ),
    ),
  );
  return form;
}

/** Lines of `before` and `after` as kept, removed and added (a longest-common-subsequence diff). */
function lineDiff(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  const common = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      common[i][j] = a[i] === b[j] ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
    }
  }
  const lines = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      lines.push(el("span", {}, a[i]));
      i++;
      j++;
    } else if (j < b.length && (i === a.length || common[i][j + 1] >= common[i + 1][j])) {
      lines.push(el("ins", {}, b[j++]));
    } else {
      lines.push(el("del", {}, a[i++]));
    }
  }
  return el("div", { class: "diff card" }, lines);
}

function historySection(history) {
  const states = [...(history.revisions ?? []), history.memory];
  if (states.length < 2) return el("p", { class: "meta" }, "No earlier versions.");
  const changes = [];
  for (let n = states.length - 1; n > 0; n--) {
    const [before, after] = [states[n - 1], states[n]];
    changes.push(
      el("h3", { class: "meta" }, `Revision ${n} → ${n + 1}, ${when(after.updated_at ?? after.written_at)}`),
      before.title !== after.title
        ? el("p", { class: "meta" }, `title: ${before.title ?? "(none)"} → ${after.title ?? "(none)"}`)
        : null,
      lineDiff(before.content, after.content),
    );
  }
  return el("section", {}, el("h2", {}, "History"), changes);
}

// ---------- timeline ----------

async function timelineView() {
  const [listing, sessions] = await Promise.all([
    call("GET", path("/v1/memories", { limit: 100, all_projects: true })),
    call("GET", path("/v1/sessions", { all_projects: true, limit: 50 })),
  ]);
  const byDay = new Map();
  for (const memory of listing.memories) {
    const key = day(memory.created_at);
    if (!byDay.has(key)) byDay.set(key, []);
    byDay.get(key).push(memory);
  }
  return [
    el("h1", {}, "Timeline"),
    el("h2", {}, "Sessions"),
    sessions.sessions.length
      ? el(
          "ul",
          {},
          sessions.sessions.map((s) =>
            el(
              "li",
              {},
              el(
                "a",
                { href: `#/session/${encodeURIComponent(s.key.agent)}/${encodeURIComponent(s.key.id)}` },
                `${s.key.agent} · ${when(s.started_at)}`,
              ),
              ` · ${s.project} — `,
              s.summary ?? s.first_prompt ?? "(no prompt recorded)",
            ),
          ),
        )
      : el("p", { class: "meta" }, "No recorded sessions."),
    el("h2", {}, "Memories by day"),
    [...byDay.entries()].map(([date, memories]) =>
      el(
        "section",
        {},
        el("h3", {}, `${date} (${memories.length})`),
        el("ul", {}, memories.map((m) => el("li", {}, el("a", { href: `#/memory/${m.id}` }, headline(m))))),
      ),
    ),
  ];
}

async function sessionView(agent, id) {
  const found = await call("GET", `/v1/sessions/${encodeURIComponent(agent)}/${encodeURIComponent(id)}`);
  const { session, observations } = found;
  return [
    el("h1", {}, `Session ${session.key.id}`),
    el(
      "p",
      { class: "meta" },
      `${session.key.agent} · ${session.project} · ${when(session.started_at)} – `,
      session.ended_at ? when(session.ended_at) : `still open (last seen ${when(session.last_seen_at)})`,
    ),
    session.first_prompt ? el("p", {}, "Asked: ", el("q", {}, session.first_prompt)) : null,
    session.summary ? el("div", { class: "card content" }, session.summary) : null,
    el("h2", {}, `What happened (${observations.length})`),
    el(
      "ol",
      { class: "observations" },
      observations.map((o) =>
        el(
          "li",
          { class: o.error ? "failed" : null, "data-kind": o.kind },
          el("span", { class: "meta" }, `${o.kind}${o.tool ? ` · ${o.tool}` : ""} · ${when(o.at)}`),
          o.input ? el("div", { class: "content" }, o.input) : null,
          o.output ? el("div", { class: o.error ? "content alert" : "content quiet" }, o.output) : null,
          o.files?.length ? el("div", { class: "meta" }, o.files.join(", ")) : null,
        ),
      ),
    ),
  ];
}

// ---------- slots ----------

async function slotsView(params) {
  const project = params.get("project") ?? "";
  const listing = await call("GET", path("/v1/slots", { project }));
  return [
    el("h1", {}, "Slots"),
    el(
      "p",
      { class: "meta" },
      "Labelled blocks agents keep; pinned ones open every session's context. ",
      "A change that would go over a slot's limit is refused and nothing is written.",
    ),
    projectPicker("#/slots", project, "a project's slots too"),
    listing.slots.map((slot) => slotCard(slot, project)),
  ];
}

/** A small form that reopens `route` for the project typed (empty: none). */
function projectPicker(route, project, hint) {
  const input = el("input", { name: "project", value: project, placeholder: hint, "aria-label": "Project" });
  return el(
    "form",
    {
      class: "row",
      onsubmit: (event) => {
        event.preventDefault();
        const name = input.value.trim();
        location.hash = name ? `${route}?${new URLSearchParams({ project: name })}` : route;
      },
    },
    input,
    el("button", { type: "submit" }, "Show"),
  );
}

function slotCard(slot, project) {
  const target = { scope: slot.scope, project: slot.project ?? (project || undefined) };
  const counter = el("span", { class: "counter", "aria-live": "polite" });
  const status = el("p", { role: "status", class: "meta" });
  const text = el("textarea", {
    name: `slot-${slot.label}`,
    value: slot.content,
    readonly: slot.read_only,
    "aria-label": `Content of ${slot.label}`,
  });
  const count = () => {
    const used = characters(text.value);
    counter.textContent = `${used} / ${slot.limit}`;
    counter.classList.toggle("over", used > slot.limit);
  };
  text.addEventListener("input", count);
  count();
  const setting = (name, label) =>
    el(
      "label",
      { class: "check" },
      el("input", {
        type: "checkbox",
        name,
        checked: slot[name],
        onchange: async (event) => {
          try {
            await call("PATCH", `/v1/slots/${encodeURIComponent(slot.label)}`, {
              ...target,
              [name]: event.target.checked,
            });
            render();
          } catch (error) {
            event.target.checked = !event.target.checked;
            status.replaceChildren(failure(error));
          }
        },
      }),
      label,
    );
  return el(
    "form",
    {
      class: "card slot",
      "data-label": slot.label,
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const saved = await call("PUT", `/v1/slots/${encodeURIComponent(slot.label)}`, {
            ...target,
            content: text.value,
          });
          status.textContent = `Saved: ${(saved.slot ?? saved).chars ?? characters(text.value)} characters.`;
        } catch (error) {
          status.replaceChildren(failure(error));
        }
      },
    },
    el("h2", {}, slot.label, el("span", { class: "meta" }, ` · ${slot.scope}${slot.project ? ` · ${slot.project}` : ""}`)),
    slot.description ? el("p", { class: "meta" }, slot.description) : null,
    text,
    el(
      "div",
      { class: "row" },
      counter,
      setting("pinned", "pinned"),
      setting("read_only", "read-only"),
      el("button", { type: "submit", class: "primary", disabled: slot.read_only }, "Save"),
    ),
    status,
  );
}

// ---------- conflicts ----------

const VERDICTS = [
  ["supersedes", "Newer replaces older"],
  ["conflicts_with", "They conflict"],
  ["scoped", "Both hold, in different contexts"],
  ["compatible", "Both hold"],
  ["related", "Related"],
  ["not_conflict", "Not a conflict"],
];

async function conflictsView() {
  const listing = await call("GET", path("/v1/conflicts", { all_projects: true, status: "pending", limit: 50 }));
  const pending = listing.conflicts;
  const cards = await Promise.all(pending.map(conflictCard));
  return [
    el("h1", {}, `Conflicts (${pending.length} pending)`),
    pending.length ? cards : el("p", { class: "meta" }, "Nothing to settle."),
  ];
}

async function conflictCard(conflict) {
  const load = (id) => call("GET", `/v1/memories/${id}`).catch(() => null);
  const [newer, older] = await Promise.all([load(conflict.source), load(conflict.target)]);
  const side = (label, memory) =>
    el(
      "div",
      { class: "card" },
      el("div", { class: "meta" }, label),
      memory
        ? [el("a", { href: `#/memory/${memory.id}` }, headline(memory)), el("p", { class: "content" }, memory.content)]
        : el("p", { class: "meta" }, "(gone)"),
    );
  const status = el("p", { role: "status", class: "meta" });
  const card = el(
    "section",
    { class: "card conflict", "data-id": conflict.id },
    el("p", { class: "meta" }, `similarity ${Number(conflict.score ?? 0).toFixed(2)} · found ${when(conflict.created_at)}`),
    el("div", { class: "pair" }, side("newer", newer), side("older", older)),
    el(
      "div",
      { class: "verdicts" },
      VERDICTS.map(([relation, label]) =>
        el(
          "button",
          {
            type: "button",
            "data-relation": relation,
            onclick: async () => {
              try {
                await call("POST", `/v1/conflicts/${conflict.id}/judge`, {
                  relation,
                  actor_kind: "user",
                  reason: "settled in the viewer",
                });
                card.replaceChildren(el("p", { role: "status" }, `Settled: ${label.toLowerCase()}.`));
              } catch (error) {
                status.replaceChildren(failure(error));
              }
            },
          },
          label,
        ),
      ),
    ),
    status,
  );
  return card;
}

// ---------- images ----------

async function imagesView(params) {
  const text = params.get("q") ?? "";
  const like = params.get("like") ?? "";
  const box = el("input", { type: "search", name: "q", value: text, "aria-label": "Find images by the words they show" });
  const form = el(
    "form",
    {
      class: "row",
      role: "search",
      onsubmit: (event) => {
        event.preventDefault();
        location.hash = `#/images?${new URLSearchParams({ q: box.value.trim() })}`;
      },
    },
    box,
    el("button", { type: "submit", class: "primary" }, "Find images"),
  );
  const results = el("section", { "aria-live": "polite" });
  const view = [el("h1", {}, "Images"), form, results];
  if (!text && !like) {
    const listing = await call("GET", path("/v1/memories", { limit: 100, all_projects: true }));
    const shown = listing.memories.flatMap((m) => (m.images ?? []).map((image) => ({ image, memories: [m.id] })));
    results.append(el("h2", {}, "Latest images"), gallery(shown));
    return view;
  }
  const body = { top_k: 24, all_projects: true };
  if (text) body.query_text = text;
  if (like) body.image_ref = like;
  const found = await call("POST", "/v1/vision/search", body);
  results.append(
    ...(found.notices ?? []).map((n) => el("p", { class: "notice" }, n)),
    el("p", { class: "meta" }, `${found.hits.length} found${like ? " that look like the chosen image" : ""}`),
    gallery(found.hits),
  );
  return view;
}

function gallery(items) {
  if (items.length === 0) return el("p", { class: "meta" }, "No images.");
  return el(
    "div",
    { class: "gallery" },
    items.map((item) =>
      el(
        "figure",
        { class: "card", "data-image": item.image.id },
        thumbnail(item.image.id, item.image.text ? `image reading: ${item.image.text.slice(0, 80)}` : "stored image"),
        el(
          "figcaption",
          {},
          item.signals
            ? el("div", { class: "meta" }, item.signals.map((s) => `${s.signal ?? s.kind} ${Number(s.score ?? 0).toFixed(2)}`).join(" · "))
            : null,
          item.image.text ? el("div", { class: "ocr" }, item.image.text) : null,
          (item.memories ?? []).map((id) => el("a", { href: `#/memory/${id}` }, "memory ")),
          el("a", { href: `#/images?${new URLSearchParams({ like: item.image.id })}`, class: "similar" }, "find similar"),
        ),
      ),
    ),
  );
}

// ---------- stats ----------

function barChart(label, rows) {
  const top = Math.max(1, ...rows.map((r) => r.count));
  return el(
    "section",
    {},
    el("h2", {}, label),
    rows.length
      ? el(
          "div",
          { class: "chart", role: "list" },
          rows.map((row) => {
            const fill = el("div", { class: "fill" });
            fill.style.width = `${(100 * row.count) / top}%`;
            return [
              el("span", { class: "name", title: row.name, role: "listitem" }, row.name),
              el("div", { class: "track" }, fill),
              el("span", { class: "value" }, row.count),
            ];
          }),
        )
      : el("p", { class: "meta" }, "Nothing yet."),
  );
}

function dayChart(days) {
  if (!days?.length) return null;
  const top = Math.max(1, ...days.map((d) => d.count));
  return el(
    "section",
    {},
    el("h2", {}, `Memories per day (the latest ${days.length} ${days.length === 1 ? "day" : "days"} with any)`),
    el(
      "div",
      { class: "days", role: "img", "aria-label": days.map((d) => `${d.name}: ${d.count}`).join(", ") },
      days.map((d) => {
        const bar = el("div", { class: "day", title: `${d.name}: ${d.count}` });
        bar.style.height = `${(100 * d.count) / top}%`;
        return bar;
      }),
    ),
    el("div", { class: "days-axis" }, el("span", {}, days[0].name), el("span", {}, days.at(-1).name)),
  );
}

function bytes(n) {
  if (n === null || n === undefined) return "unknown";
  const units = ["B", "KiB", "MiB", "GiB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit ? 1 : 0)} ${units[unit]}`;
}

async function statsView() {
  const [stats, tags] = await Promise.all([
    call("GET", "/v1/stats"),
    call("GET", path("/v1/tags", { all_projects: true })),
  ]);
  const figure = (name, value) => el("div", { class: "card" }, el("strong", {}, value), name);
  return [
    el("h1", {}, "Stats"),
    el(
      "div",
      { class: "figures" },
      figure("memories", stats.memories),
      figure("revisions", stats.revisions),
      figure("forgotten", stats.forgotten),
      figure("store size", bytes(stats.size_bytes)),
    ),
    dayChart(stats.by_day),
    barChart("By category", stats.by_category ?? []),
    barChart("Top tags", (tags.tags ?? []).slice(0, 10).map((t) => ({ name: t.tag, count: t.count }))),
    barChart("By agent", stats.by_agent ?? []),
    barChart("By project", stats.by_project ?? []),
  ];
}

// ---------- routing ----------

const VIEWS = [
  [/^\/$/, "search", (m, params) => searchView(params)],
  [/^\/memory\/([^/]+)$/, "search", (m) => memoryView(decodeURIComponent(m[1]))],
  [/^\/timeline$/, "timeline", () => timelineView()],
  [/^\/session\/([^/]+)\/([^/]+)$/, "timeline", (m) => sessionView(decodeURIComponent(m[1]), decodeURIComponent(m[2]))],
  [/^\/slots$/, "slots", (m, params) => slotsView(params)],
  [/^\/conflicts$/, "conflicts", () => conflictsView()],
  [/^\/images$/, "images", (m, params) => imagesView(params)],
  [/^\/stats$/, "stats", () => statsView()],
];

/** Which render is the latest: a view that finishes after the address changed again is dropped. */
let generation = 0;

/** Shows the view the address names. Views return what to show; they never show it themselves. */
async function render() {
  const mine = ++generation;
  const hash = location.hash.startsWith("#") ? location.hash.slice(1) : "/";
  const [route, query] = (hash || "/").split("?", 2);
  const params = new URLSearchParams(query ?? "");
  signOut.hidden = !sessionStorage.getItem(TOKEN_KEY);
  for (const [pattern, section, view] of VIEWS) {
    const match = pattern.exec(route);
    if (!match) continue;
    for (const link of document.querySelectorAll("nav a")) {
      if (link.dataset.section === section) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    let nodes;
    try {
      nodes = await view(match, params);
    } catch (error) {
      if (error.status === 401) {
        const refused = Boolean(sessionStorage.getItem(TOKEN_KEY));
        sessionStorage.removeItem(TOKEN_KEY);
        signOut.hidden = true;
        nodes = loginView(refused);
      } else {
        nodes = [el("h1", {}, "Something went wrong"), failure(error)];
      }
    }
    if (mine === generation) show(nodes);
    return;
  }
  show([el("h1", {}, "Not found"), el("p", {}, el("a", { href: "#/" }, "Back to search"))]);
}

signOut.addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  render();
});
document.addEventListener("keydown", (event) => {
  const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement?.tagName);
  if (event.key === "/" && !typing) {
    event.preventDefault();
    if (location.hash !== "" && location.hash !== "#/") location.hash = "#/";
    else document.querySelector('input[name="q"]')?.focus();
  }
});
window.addEventListener("hashchange", render);
render();
