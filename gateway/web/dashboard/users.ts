import { api, loadInto, pageHeading, submitting, type ViewContext } from "./app-shell.ts";
import { h, replaceChildren } from "../shared/dom.ts";
import { confirmAction } from "../shared/confirm-dialog.ts";
import { field, resultBox, time } from "./widgets.ts";
import type { Schema } from "./api.ts";

/** Users (admins): create with an initial password, change role, deactivate or reactivate. */
export function usersView({ main, user: me }: ViewContext) {
  const region = h("div", { class: "region" });
  const notice = h("div", {});
  const say = (result: { ok: boolean; error: string }, success: string) => replaceChildren(notice, resultBox(result, success));
  const reload = () =>
    loadInto(
      region,
      () => api<Schema<"UserList">>("GET", "/users"),
      ({ users }) =>
        h(
          "table",
          {},
          h("caption", {}, "People in your organization"),
          h(
            "thead",
            {},
            h(
              "tr",
              {},
              ["E-mail address", "Role", "Status", "Added", "Actions"].map((label) => h("th", { scope: "col" }, label)),
            ),
          ),
          h(
            "tbody",
            {},
            users.map((user) => {
              const self = user.userId === me.userId;
              const otherRole = user.role === "admin" ? "member" : "admin";
              return h(
                "tr",
                {},
                h("th", { scope: "row" }, user.email, self ? h("span", { class: "muted" }, " (you)") : null),
                h("td", {}, user.role === "admin" ? "Admin" : "Member"),
                h("td", {}, user.deactivated ? h("span", { class: "badge off" }, "Deactivated") : h("span", { class: "badge on" }, "Active")),
                h("td", {}, time(user.createdAt)),
                h(
                  "td",
                  {},
                  self
                    ? h("span", { class: "muted" }, "Another admin can change your account.")
                    : h(
                        "div",
                        { class: "actions" },
                        h(
                          "button",
                          {
                            type: "button",
                            class: "secondary",
                            "aria-label": `Make ${user.email} ${otherRole === "admin" ? "an admin" : "a member"}`,
                            onclick: async () => {
                              say(
                                await api("PATCH", `/users/${user.userId}`, { role: otherRole }),
                                `${user.email} is now ${otherRole === "admin" ? "an admin" : "a member"}.`,
                              );
                              await reload();
                            },
                          },
                          otherRole === "admin" ? "Make admin" : "Make member",
                        ),
                        h(
                          "button",
                          {
                            type: "button",
                            class: user.deactivated ? "secondary" : "danger",
                            "aria-label": `${user.deactivated ? "Reactivate" : "Deactivate"} ${user.email}`,
                            onclick: async () => {
                              if (!user.deactivated) {
                                const sure = await confirmAction({
                                  title: `Deactivate ${user.email}?`,
                                  message: "They are signed out at once, and their API keys and OAuth tokens stop working until they are reactivated.",
                                  action: "Deactivate",
                                });
                                if (!sure) return;
                              }
                              say(
                                await api("PATCH", `/users/${user.userId}`, { deactivated: !user.deactivated }),
                                `${user.email} is ${user.deactivated ? "reactivated" : "deactivated"}.`,
                              );
                              await reload();
                            },
                          },
                          user.deactivated ? "Reactivate" : "Deactivate",
                        ),
                      ),
                ),
              );
            }),
          ),
        ),
    );
  const message = h("div", { class: "form-message" });
  const email = h("input", { type: "email", name: "email", required: true, maxlength: "254", autocomplete: "off" });
  const password = h("input", { type: "password", name: "password", required: true, minlength: "8", autocomplete: "new-password" });
  const role = h("select", { name: "role" }, h("option", { value: "member" }, "Member"), h("option", { value: "admin" }, "Admin"));
  const form = h(
    "form",
    { class: "card inline-form", novalidate: true },
    h("h2", {}, "Add a person"),
    field("E-mail address", email),
    field("Initial password", password, "At least 8 characters. Hand it over safely; they sign in with it."),
    field("Role", role, "Admins manage OAuth clients, webhooks and people."),
    message,
    h("button", { type: "submit", class: "primary" }, "Add person"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const result = await submitting(
      form,
      message,
      () => api<Schema<"User">>("POST", "/users", { email: email.value, password: password.value, role: role.value }),
      { earlierStatus: notice },
    );
    if (!result.ok) return;
    form.reset();
    say(result, `${result.body.email} can now sign in.`);
    await reload();
  });
  replaceChildren(main, pageHeading("Users", "Who can sign in to your organization, and what they may manage."), notice, form, region);
  void reload();
}
