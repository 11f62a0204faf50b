// Stats as charts: memories per day, per category, tag, agent and project; the store's size.

import { call, path } from "../api.js";
import { el } from "../dom.js";

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

export async function statsView() {
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
