// Forgotten memories, most recently changed first, each with a button that brings it back
// (POST /v1/memories/{id}/restore): what `cairn forget --undo` does, for a memory forgotten
// by mistake or because its unit was cut from a markdown file.

import { call, path } from "../api.js";
import { el, failure, headline, when } from "../dom.js";

export async function forgottenView() {
  const listing = await call(
    "GET",
    path("/v1/memories", { include_forgotten: true, all_projects: true, sort: "updated", limit: 100 }),
  );
  const forgotten = listing.memories.filter((m) => m.deleted_at);
  return [
    el("h1", {}, "Forgotten"),
    forgotten.length
      ? el("p", { class: "meta" }, "Hidden from every search and list until restored.")
      : el("p", { class: "meta" }, "Nothing forgotten among the most recently changed memories."),
    el("ul", { class: "forgotten" }, forgotten.map(forgottenItem)),
  ];
}

function forgottenItem(memory) {
  const status = el("span", { role: "status", class: "meta" });
  const restore = el(
    "button",
    {
      type: "button",
      onclick: async () => {
        try {
          await call("POST", `/v1/memories/${encodeURIComponent(memory.id)}/restore`);
          location.hash = `#/memory/${memory.id}`;
        } catch (error) {
          status.replaceChildren(failure(error));
        }
      },
    },
    "Restore",
  );
  return el(
    "li",
    { "data-id": memory.id },
    `${headline(memory)} `,
    el("span", { class: "meta" }, `(${memory.project ?? "global"}, forgotten ${when(memory.deleted_at)}) `),
    restore,
    status,
  );
}
