import "./dashboard.css";
import { api, type Schema, type SessionUser, type ViewContext } from "./app-shell.ts";
import { apiKeysView } from "./api-keys.ts";
import { meetingEmbeddingView } from "./meeting-embedding.ts";
import { meetingPageView } from "./meetings/meeting-page.ts";
import { meetingsView } from "./meetings.ts";
import { usageView } from "./usage.ts";
import { authorizedAppsView } from "./authorized-apps.ts";
import { append, h, replaceChildren } from "../shared/dom.ts";
import { alertBox } from "./widgets.ts";
import { oauthClientsView } from "./oauth-clients.ts";
import { recordingsView } from "./recordings.ts";
import { signInView } from "./sign-in.ts";
import { thirdPartyAppsView } from "./third-party-apps.ts";
import { usersView } from "./users.ts";
import { webhooksView } from "./webhooks.ts";

/**
 * The developer dashboard: a small single-page application over the public REST API. Each
 * path under /dashboard is a view; the gateway serves the same page for all of them.
 */
interface Route {
  path: string;
  label: string;
  group: (typeof groupOrder)[number];
  adminOnly: boolean;
  view: (context: ViewContext) => void;
}

/** Sections named by what people look for, meetings first (what support staff open first). */
const groupOrder = ["Meetings", "Developers", "Settings", "Organization"] as const;

const routes: Route[] = [
  { path: "/dashboard/meetings", label: "Meetings", group: "Meetings", adminOnly: false, view: meetingsView },
  { path: "/dashboard/usage", label: "Usage", group: "Meetings", adminOnly: false, view: usageView },
  { path: "/dashboard/recordings", label: "Recordings", group: "Meetings", adminOnly: false, view: recordingsView },
  { path: "/dashboard/api-keys", label: "API keys", group: "Developers", adminOnly: false, view: apiKeysView },
  { path: "/dashboard/oauth-clients", label: "OAuth clients", group: "Developers", adminOnly: true, view: oauthClientsView },
  { path: "/dashboard/webhooks", label: "Webhooks", group: "Developers", adminOnly: false, view: webhooksView },
  { path: "/dashboard/authorized-apps", label: "Authorized apps", group: "Settings", adminOnly: false, view: authorizedAppsView },
  { path: "/dashboard/users", label: "Users", group: "Organization", adminOnly: true, view: usersView },
  { path: "/dashboard/third-party-apps", label: "Third-party apps", group: "Organization", adminOnly: true, view: thirdPartyAppsView },
  { path: "/dashboard/embedding", label: "Embedding", group: "Organization", adminOnly: true, view: meetingEmbeddingView },
];

const root = document.getElementById("app")!;

async function start() {
  const path = window.location.pathname.replace(/\/+$/, "") || "/dashboard";
  if (path === "/dashboard/sign-in") return signInView(root, "sign-in");
  if (path === "/dashboard/sign-up") return signInView(root, "sign-up");
  const session = await api<Schema<"SessionInfo">>("GET", "/session");
  if (session.status === 401) return void window.location.replace("/dashboard/sign-in");
  if (!session.ok) return replaceChildren(root, h("main", { id: "main", class: "auth" }, h("h1", {}, "The dashboard is unavailable"), alertBox(session.error)));
  renderShell(session.body.user, path);
}

function renderShell(user: SessionUser, path: string) {
  const main = h("main", { id: "main", tabindex: "-1" });
  const visible = routes.filter((route) => !route.adminOnly || user.role === "admin");
  const navigate = (to: string) => {
    history.pushState(null, "", to);
    setMenuOpen(false);
    show(to);
  };
  const links = visible.map((route) =>
    h(
      "a",
      {
        href: route.path,
        onclick: (event: Event) => {
          event.preventDefault();
          navigate(route.path);
        },
      },
      route.label,
    ),
  );
  const groups = groupOrder
    .map((group) => ({ group, items: visible.map((route, index) => ({ route, link: links[index]! })).filter(({ route }) => route.group === group) }))
    .filter(({ items }) => items.length > 0);
  const signOut = h(
    "button",
    {
      type: "button",
      class: "secondary",
      onclick: async () => {
        await api("DELETE", "/session");
        window.location.href = "/dashboard/sign-in";
      },
    },
    "Sign out",
  );
  const show = (to: string) => {
    // A meeting's own page (/dashboard/meetings/<id>) belongs to the Meetings section.
    const meetingId = /^\/dashboard\/meetings\/([^/]+)$/.exec(to)?.[1];
    const section = meetingId ? "/dashboard/meetings" : to;
    const route = visible.find((candidate) => candidate.path === section) ?? (routes.some((candidate) => candidate.path === section) ? undefined : visible[0]);
    links.forEach((link) => (link.getAttribute("href") === route?.path ? link.setAttribute("aria-current", "page") : link.removeAttribute("aria-current")));
    if (route && meetingId) {
      document.title = "Meeting · svc dashboard";
      meetingPageView({ user, main, navigate }, decodeURIComponent(meetingId));
    } else if (!route) {
      // An admin-only page opened by a member: say so instead of showing an empty page.
      replaceChildren(
        main,
        h("h1", { tabindex: "-1", id: "page-title" }, "Not available to you"),
        h("p", {}, "Only admins of your organization can open this page."),
      );
    } else {
      document.title = `${route.label} · svc dashboard`;
      route.view({ user, main, navigate });
    }
    (main.querySelector("h1") as HTMLElement | null)?.focus();
  };
  window.onpopstate = () => show(window.location.pathname);
  // At phone width the navigation folds behind this button (CSS shows it only there), so the
  // page's content is on the first screen.
  const menuButton = h("button", { type: "button", class: "secondary menu-toggle", "aria-expanded": "false", "aria-controls": "site-nav" }, "Menu");
  const layout = h("div", { class: "layout" });
  function setMenuOpen(open: boolean) {
    menuButton.setAttribute("aria-expanded", String(open));
    layout.classList.toggle("nav-open", open);
  }
  menuButton.addEventListener("click", () => setMenuOpen(menuButton.getAttribute("aria-expanded") !== "true"));
  append(
    layout,
    h(
      "nav",
      { "aria-label": "Dashboard", id: "site-nav" },
      groups.map(({ group, items }) =>
        h(
          "section",
          {},
          h("h2", {}, group === "Developers" ? "Settings › Developers" : group),
          h(
            "ul",
            {},
            items.map(({ link }) => h("li", {}, link)),
          ),
        ),
      ),
    ),
    main,
  );
  replaceChildren(
    root,
    h("a", { class: "skip", href: "#main" }, "Skip to content"),
    h(
      "header",
      { class: "top" },
      menuButton,
      h("p", { class: "brand" }, "svc dashboard"),
      h(
        "p",
        { class: "who" },
        h("span", {}, user.email),
        " · ",
        h("span", {}, user.organizationName),
        " · ",
        h("span", { class: "role" }, user.role === "admin" ? "Admin" : "Member"),
      ),
      signOut,
    ),
    layout,
  );
  show(path === "/dashboard" ? "/dashboard/meetings" : path);
}

void start();
