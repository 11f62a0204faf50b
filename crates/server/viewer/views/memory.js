// One memory: its content, tags, images and relations, an edit form, and its history, each
// revision shown as a line diff against the next.

import { call } from "../api.js";
import { el, failure, headline, refresh, tagList, thumbnail, when } from "../dom.js";

export async function memoryView(id) {
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
          refresh();
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
