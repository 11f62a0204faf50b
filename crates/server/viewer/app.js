// cairn's web viewer: a small page over the REST API under /v1, with no library and no build.
//
// The page is one view at a time, chosen by the address's hash (#/, #/memory/ID, #/slots …),
// so every view can be bookmarked and the back button works. Each view (views/*.js) asks the
// API for what it shows and returns the nodes to show; the API's errors are shown as any
// client would see them, and a 401 asks for the token (views/login.js). The server's
// Content-Security-Policy forbids inline script; stored text is only ever made into text
// (dom.js).

import { TOKEN_KEY } from "./api.js";
import { el, failure } from "./dom.js";
import { conflictsView } from "./views/conflicts.js";
import { forgottenView } from "./views/forgotten.js";
import { imagesView } from "./views/images.js";
import { loginView } from "./views/login.js";
import { memoryView } from "./views/memory.js";
import { searchView } from "./views/search.js";
import { slotsView } from "./views/slots.js";
import { statsView } from "./views/stats.js";
import { sessionView, timelineView } from "./views/timeline.js";

const main = document.getElementById("main");

const signOut = document.getElementById("sign-out");

/**
 * Puts `nodes` (nodes, text or lists of them; empty values skipped) in place of the view and
 * focuses its `autofocus` field, if any. `main`'s `data-shown` says what is shown (the address,
 * or `login`): scripts driving the page wait for it.
 */
function show(nodes, shown) {
  main.replaceChildren(el("div", { class: "view" }, nodes));
  main.dataset.shown = shown;
  main.querySelector("[autofocus]")?.focus();
}

const VIEWS = [
  [/^\/$/, "search", (m, params) => searchView(params)],
  [/^\/memory\/([^/]+)$/, "search", (m) => memoryView(decodeURIComponent(m[1]))],
  [/^\/timeline$/, "timeline", (m, params) => timelineView(params)],
  [/^\/session\/([^/]+)\/([^/]+)$/, "timeline", (m) => sessionView(decodeURIComponent(m[1]), decodeURIComponent(m[2]))],
  [/^\/slots$/, "slots", (m, params) => slotsView(params)],
  [/^\/conflicts$/, "conflicts", () => conflictsView()],
  [/^\/images$/, "images", (m, params) => imagesView(params)],
  [/^\/stats$/, "stats", () => statsView()],
  [/^\/forgotten$/, "forgotten", () => forgottenView()],
];

/** Which render is the latest: a view that finishes after the address changed again is dropped. */
let generation = 0;

/** Shows the view the address names. Views return what to show; they never show it themselves. */
async function render() {
  const mine = ++generation;
  const hash = location.hash.startsWith("#") ? location.hash.slice(1) : "/";
  const [route, query] = (hash || "/").split("?", 2);
  const params = new URLSearchParams(query ?? "");
  signOut.hidden = !sessionStorage.getItem(TOKEN_KEY);
  for (const [pattern, section, view] of VIEWS) {
    const match = pattern.exec(route);
    if (!match) continue;
    for (const link of document.querySelectorAll("nav a")) {
      if (link.dataset.section === section) link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    }
    let nodes;
    let shown = `#${hash || "/"}`;
    try {
      nodes = await view(match, params);
    } catch (error) {
      if (error.status === 401) {
        const refused = Boolean(sessionStorage.getItem(TOKEN_KEY));
        sessionStorage.removeItem(TOKEN_KEY);
        signOut.hidden = true;
        nodes = loginView(refused);
        shown = "login";
      } else {
        nodes = [el("h1", {}, "Something went wrong"), failure(error)];
      }
    }
    if (mine === generation) show(nodes, shown);
    return;
  }
  show([el("h1", {}, "Not found"), el("p", {}, el("a", { href: "#/" }, "Back to search"))], `#${hash}`);
}

signOut.addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  render();
});
document.addEventListener("keydown", (event) => {
  const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement?.tagName);
  if (event.key === "/" && !typing) {
    event.preventDefault();
    if (location.hash !== "" && location.hash !== "#/") location.hash = "#/";
    else document.querySelector('input[name="q"]')?.focus();
  }
});
window.addEventListener("hashchange", render);
render();
