// Slots: each with a live character count against its limit, the pinned and read-only switches,
// and the API's refusal shown when a change would go over the limit (nothing is written).

import { call, path } from "../api.js";
import { characters, el, failure, projectPicker, refresh } from "../dom.js";

export async function slotsView(params) {
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
            refresh();
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
