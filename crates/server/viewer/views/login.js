// Signing in: the server's token, asked once and kept in this tab's session storage.

import { TOKEN_KEY } from "../api.js";
import { el, refresh } from "../dom.js";

export function loginView(refused) {
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
        refresh();
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
