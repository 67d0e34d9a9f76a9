import { api, loadInto, pageHeading, type ViewContext } from "./app-shell.ts";
import { confirmAction, h, replace, statusBox, time } from "./dom.ts";

interface App {
  grantId: string;
  clientId: string;
  name: string;
  scopes: string[];
  grantedAt: string;
}

/** Settings → Authorized apps: the OAuth applications this user approved. */
export function authorizedAppsView({ main }: ViewContext) {
  const list = h("div", { class: "region" });
  const notice = h("div", {});
  const reload = () =>
    loadInto(
      list,
      () => api<{ apps: App[] }>("GET", "/authorized-apps"),
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
                  h(
                    "button",
                    {
                      type: "button",
                      class: "danger",
                      "aria-label": `Revoke access of ${app.name}`,
                      onclick: async () => {
                        const sure = await confirmAction({
                          title: `Revoke access of ${app.name}?`,
                          message: "Its access and refresh tokens stop working at once. The application has to ask you again.",
                          action: "Revoke access",
                        });
                        if (!sure) return;
                        const result = await api("DELETE", `/authorized-apps/${encodeURIComponent(app.grantId)}`);
                        replace(
                          notice,
                          result.ok ? statusBox(`${app.name} no longer has access.`) : h("p", { class: "notice error", role: "alert" }, result.error),
                        );
                        await reload();
                      },
                    },
                    "Revoke access",
                  ),
                ),
              ),
            ),
    );
  replace(main, pageHeading("Authorized apps", "Applications you allowed to act for you through OAuth. Each approval is listed on its own."), notice, list);
  void reload();
}
