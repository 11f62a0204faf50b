// The timeline: memories grouped by the day they were written, recorded sessions, and one
// session's observations in the order they happened.

import { call, path } from "../api.js";
import { day, el, headline, when } from "../dom.js";

export async function timelineView() {
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
