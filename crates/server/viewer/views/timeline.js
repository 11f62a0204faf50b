// The timeline: day by day, the memories written and the sessions started (a hundred memories a
// page), and one session's observations in the order they happened.

import { call, path } from "../api.js";
import { day, el, headline, when } from "../dom.js";

const PAGE = 100;

export async function timelineView(params) {
  // Pages of a hundred memories, newest first; the sessions come with the first.
  const page = Math.max(0, Number.parseInt(params.get("page") ?? "0", 10) || 0);
  const [listing, sessions] = await Promise.all([
    call("GET", path("/v1/memories", { limit: PAGE, offset: page * PAGE, all_projects: true })),
    page === 0 ? call("GET", path("/v1/sessions", { all_projects: true, limit: 50 })) : { sessions: [] },
  ]);
  // Each day with what was written and which sessions started, newest day first.
  const days = new Map();
  const dayOf = (key) => {
    if (!days.has(key)) days.set(key, { memories: [], sessions: [] });
    return days.get(key);
  };
  for (const memory of listing.memories) dayOf(day(memory.created_at)).memories.push(memory);
  for (const session of sessions.sessions) dayOf(day(session.started_at)).sessions.push(session);
  const ordered = [...days.entries()].sort(([a], [b]) => (a < b ? 1 : -1));
  return [
    el("h1", {}, "Timeline"),
    ordered.length ? null : el("p", { class: "meta" }, "Nothing recorded yet."),
    ordered.map(([date, { memories, sessions: started }]) =>
      el(
        "section",
        { class: "day", "data-day": date },
        el("h2", {}, date),
        started.length
          ? el(
              "div",
              { class: "sessions" },
              el("h3", { class: "meta" }, `Sessions (${started.length})`),
              el("ul", {}, started.map(sessionItem)),
            )
          : null,
        memories.length
          ? el(
              "div",
              { class: "memories" },
              el("h3", { class: "meta" }, `Memories (${memories.length})`),
              el("ul", {}, memories.map((m) => el("li", {}, el("a", { href: `#/memory/${m.id}` }, headline(m))))),
            )
          : null,
      ),
    ),
    listing.total > (page + 1) * PAGE
      ? el("p", {}, el("a", { href: `#/timeline?page=${page + 1}`, class: "older" }, "Older memories"))
      : null,
  ];
}

function sessionItem(session) {
  return el(
    "li",
    {},
    el(
      "a",
      { href: `#/session/${encodeURIComponent(session.key.agent)}/${encodeURIComponent(session.key.id)}` },
      `${session.key.agent} · ${when(session.started_at)}`,
    ),
    ` · ${session.project} — `,
    session.summary ?? session.first_prompt ?? "(no prompt recorded)",
  );
}

export async function sessionView(agent, id) {
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
