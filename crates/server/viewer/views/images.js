// Images: the latest ones, vision search by the words they show, and "find similar" (a stored
// image as the query).

import { call, path } from "../api.js";
import { addressForm, el, thumbnail } from "../dom.js";

export async function imagesView(params) {
  const text = params.get("q") ?? "";
  const like = params.get("like") ?? "";
  const box = el("input", { type: "search", name: "q", value: text, "aria-label": "Find images by the words they show" });
  const form = addressForm(
    "#/images",
    { role: "search" },
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
  const hits = like ? besidesTheChosen(found.hits, like) : found.hits;
  results.append(
    ...(found.notices ?? []).map((n) => el("p", { class: "notice" }, n)),
    el("p", { class: "meta" }, `${hits.length} found${like ? " that look like the chosen image" : ""}`),
    gallery(hits),
  );
  return view;
}

// A stored image as the query finds itself first, its copies folded under it: beside the chosen
// image, show those copies as its same screen, then the rest.
function besidesTheChosen(hits, chosen) {
  return hits.flatMap((hit) =>
    hit.image.id === chosen ? (hit.copies ?? []).map((id) => ({ image: { id }, memories: [], sameScreen: true })) : [hit],
  );
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
          // Search hits say which signals found them (ocr text, look, look vector) and how well.
          item.signals
            ? el("div", { class: "meta" }, item.signals.map((s) => `${s.signal} ${s.score.toFixed(2)}`).join(" · "))
            : null,
          item.sameScreen ? el("div", { class: "meta" }, "same screen as the chosen image") : null,
          item.image.text ? el("div", { class: "ocr" }, item.image.text) : null,
          el(
            "div",
            { class: "row" },
            item.memories.map((id) => el("a", { href: `#/memory/${id}` }, "open memory")),
            el("a", { href: `#/images?${new URLSearchParams({ like: item.image.id })}`, class: "similar" }, "find similar"),
          ),
        ),
      ),
    ),
  );
}
