import { api, loadInto, pageHeading, type ViewContext } from "./app-shell.ts";
import { h, replaceChildren } from "../shared/dom.ts";
import { confirmedButton, resultBox, time } from "./widgets.ts";
import type { Schema } from "./api.ts";

/** Settings → Authorized apps: the OAuth applications this user approved. */
export function authorizedAppsView({ main }: ViewContext) {
  const list = h("div", { class: "region" });
  const notice = h("div", {});
  const reload = () =>
    loadInto(
      list,
      () => api<Schema<"AuthorizedAppList">>("GET", "/authorized-apps"),
      ({ apps }) =>
        apps.length === 0
          ? h("p", { class: "empty" }, "You have not authorized any application.")
          : h(
              "ul",
              { class: "cards" },
              apps.map((app) =>
                h(
                  "li",
                  { class: "card" },
                  h("h2", {}, app.name),
                  h("p", {}, "Authorized ", time(app.grantedAt)),
                  h(
                    "p",
                    {},
                    "Can: ",
                    app.scopes.map((scope, index) => [index > 0 ? ", " : "", h("code", {}, scope)]),
                  ),
                  confirmedButton({
                    label: "Revoke access",
                    ariaLabel: `Revoke access of ${app.name}`,
                    tone: "danger",
                    confirm: {
                      title: `Revoke access of ${app.name}?`,
                      message: "Its access and refresh tokens stop working at once. The application has to ask you again.",
                      action: "Revoke access",
                    },
                    onConfirmed: async () => {
                      replaceChildren(
                        notice,
                        resultBox(await api("DELETE", `/authorized-apps/${encodeURIComponent(app.grantId)}`), `${app.name} no longer has access.`),
                      );
                      await reload();
                    },
                  }),
                ),
              ),
            ),
    );
  replaceChildren(
    main,
    pageHeading("Authorized apps", "Applications you allowed to act for you through OAuth. Each approval is listed on its own."),
    notice,
    list,
  );
  void reload();
}
