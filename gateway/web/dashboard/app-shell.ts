import { api, type ApiResult, type Schema } from "./api.ts";
import { h, replaceChildren } from "../shared/dom.ts";
import { alertBox } from "./widgets.ts";

export type SessionUser = Schema<"SessionUser">;

export interface ViewContext {
  user: SessionUser;
  /** The page's main region, which a view fills. */
  main: HTMLElement;
  navigate(path: string): void;
}

/** Each region's latest load: an answer to an earlier one is stale and dropped. */
const latestLoad = new WeakMap<HTMLElement, object>();

/**
 * Loads data into a region with every state designed: loading, error (with the API's message
 * and a retry), refused (403: not allowed, in words) and the rendered success. Only the region's
 * latest load is shown: a person who picks another meeting while the first still loads sees the
 * one they picked, whichever answer comes last.
 */
export async function loadInto<T>(region: HTMLElement, load: () => Promise<ApiResult<T>>, render: (body: T) => Node | Node[]) {
  const thisLoad = {};
  latestLoad.set(region, thisLoad);
  region.setAttribute("aria-busy", "true");
  replaceChildren(region, h("p", { class: "loading", role: "status" }, "Loading…"));
  const result = await load();
  if (latestLoad.get(region) !== thisLoad) return;
  region.removeAttribute("aria-busy");
  if (result.ok) return replaceChildren(region, render(result.body));
  if (result.status === 401) return void (window.location.href = "/dashboard/sign-in");
  if (result.status === 403) {
    return replaceChildren(
      region,
      h(
        "div",
        { class: "refused" },
        h("h2", {}, "Not available to you"),
        h("p", {}, result.error),
        h("p", {}, "Ask an admin of your organization if you need this."),
      ),
    );
  }
  replaceChildren(
    region,
    alertBox(result.error),
    h("button", { type: "button", class: "secondary", onclick: () => void loadInto(region, load, render) }, "Try again"),
  );
}

/** Disables a form's controls while its request runs, and shows the API's answer. */
export async function submitting<T>(
  form: HTMLFormElement,
  message: HTMLElement,
  run: () => Promise<ApiResult<T>>,
  options: {
    signedOutOn401?: boolean;
    /** The page's status line of an earlier action, emptied as this one starts: an error never stands beside an old success. */
    earlierStatus?: HTMLElement;
  } = {},
): Promise<ApiResult<T>> {
  if (options.earlierStatus) replaceChildren(options.earlierStatus);
  const controls = [...form.querySelectorAll<HTMLButtonElement | HTMLInputElement>("button, input, select, textarea")];
  controls.forEach((control) => (control.disabled = true));
  form.setAttribute("aria-busy", "true");
  replaceChildren(message);
  const result = await run();
  controls.forEach((control) => (control.disabled = false));
  form.removeAttribute("aria-busy");
  if (!result.ok) {
    // A 401 means the session ended, except on the sign-in form itself (a wrong password).
    if (result.status === 401 && (options.signedOutOn401 ?? true)) window.location.href = "/dashboard/sign-in";
    replaceChildren(message, alertBox(result.error));
    (form.querySelector("input, textarea, select") as HTMLElement | null)?.focus();
  }
  return result;
}

export const pageHeading = (title: string, intro: string) => [h("h1", { tabindex: "-1", id: "page-title" }, title), h("p", { class: "intro" }, intro)];

export { api, type Schema };
