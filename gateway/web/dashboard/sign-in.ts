import { api } from "./api.ts";
import { h, replaceChildren } from "../shared/dom.ts";
import { field } from "./widgets.ts";
import { submitting } from "./app-shell.ts";

/** Sign-in and sign-up: plain forms posting JSON to POST /session and POST /signup. */
export function signInView(root: HTMLElement, mode: "sign-in" | "sign-up") {
  const message = h("div", { class: "form-message" });
  const email = h("input", { type: "email", name: "email", autocomplete: "username", required: true, maxlength: "254" });
  const password = h("input", {
    type: "password",
    name: "password",
    autocomplete: mode === "sign-in" ? "current-password" : "new-password",
    required: true,
    ...(mode === "sign-up" ? { minlength: "8" } : {}),
  });
  const organization = h("input", { type: "text", name: "organizationName", autocomplete: "organization", required: true, maxlength: "200" });
  const form = h(
    "form",
    { class: "card", novalidate: true },
    mode === "sign-up" ? field("Organization name", organization) : null,
    field("E-mail address", email),
    field("Password", password, mode === "sign-up" ? "At least 8 characters." : undefined),
    message,
    h("button", { type: "submit", class: "primary" }, mode === "sign-in" ? "Sign in" : "Create organization"),
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const result = await submitting(
      form,
      message,
      () =>
        mode === "sign-in"
          ? api("POST", "/session", { email: email.value, password: password.value })
          : api("POST", "/signup", { organizationName: organization.value, email: email.value, password: password.value }),
      { signedOutOn401: false },
    );
    if (result.ok) window.location.href = "/dashboard";
    else password.value = "";
  });
  replaceChildren(
    root,
    h(
      "main",
      { class: "auth", id: "main" },
      h("p", { class: "brand" }, "svc developers"),
      h("h1", {}, mode === "sign-in" ? "Sign in" : "Create an organization"),
      h("p", { class: "intro" }, mode === "sign-in" ? "Sign in to manage API keys, OAuth clients and webhooks." : "You will be its first admin."),
      form,
      mode === "sign-in"
        ? h("p", {}, "New here? ", h("a", { href: "/dashboard/sign-up" }, "Create an organization"), ".")
        : h("p", {}, "Already have an account? ", h("a", { href: "/dashboard/sign-in" }, "Sign in"), "."),
    ),
  );
  (mode === "sign-up" ? organization : email).focus();
}
