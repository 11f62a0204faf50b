// Pending conflicts: the newer and the older memory side by side, settled with one click.

import { call, path } from "../api.js";
import { el, failure, headline, when } from "../dom.js";

const VERDICTS = [
  ["supersedes", "Newer replaces older"],
  ["conflicts_with", "They conflict"],
  ["scoped", "Both hold, in different contexts"],
  ["compatible", "Both hold"],
  ["related", "Related"],
  ["not_conflict", "Not a conflict"],
];

export async function conflictsView() {
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
