// Search: one box with a mode and filters, results with their snippets (the matched words
// marked), annotations and, with "explain", each signal's rank and score.

import { call, path } from "../api.js";
import { addressForm, el, headline, marked, snippet, tagList, when } from "../dom.js";

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

export async function searchView(params) {
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
  const form = addressForm(
    "#/",
    { role: "search" },
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

export function hitCard(hit, words, explain) {
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
