import type { Stack } from "../../support/stack.ts";
import type { OAuthApp } from "./oauth-app.ts";

/** The cookies a browser would keep over one authorization (names only; paths do not matter to the server). */
function cookieJar() {
  const cookies = new Map<string, string>();
  return {
    take(response: Response) {
      for (const header of response.headers.getSetCookie()) {
        const [pair] = header.split(";");
        const at = pair!.indexOf("=");
        cookies.set(pair!.slice(0, at), pair!.slice(at + 1));
      }
    },
    header: () => [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
  };
}

const csrfOf = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? "";

/**
 * Starts an authorization request without following it, and opens the sign-in page it redirects
 * to with the cookies it set, as a browser would: `started` is the authorize endpoint's answer (a
 * 303 to the interaction), `csrf` the sign-in form's token (undefined when the page has none).
 */
export async function openSignInPage(stack: Stack, app: OAuthApp, options: { scope: string; state: string; headers?: Record<string, string> }) {
  const started = await fetch(app.authorizeUrl({ scope: options.scope, state: options.state }), { redirect: "manual", headers: options.headers ?? {} });
  const interactionPath = started.headers.get("location") ?? "";
  const setCookies = started.headers.getSetCookie();
  const cookie = setCookies.map((header) => header.split(";")[0]).join("; ");
  const page = await fetch(`${stack.gatewayUrl}${interactionPath}`, { headers: { cookie } });
  const html = await page.text();
  return { started, interactionPath, setCookies, cookie, page, html, csrf: /name="csrf" value="([^"]+)"/.exec(html)?.[1] };
}

/**
 * One authorization request played as a browser without JavaScript would: the authorize URL,
 * the sign-in form, then the consent step (its page, and `decide` to post a decision and follow
 * the redirects to the application's callback URL).
 */
export async function authorizeOverHttp(stack: Stack, app: OAuthApp, person: { email: string; password: string }, options: { scope: string; state: string }) {
  const jar = cookieJar();
  const get = async (url: string) => {
    const response = await fetch(new URL(url, stack.gatewayUrl), { redirect: "manual", headers: { cookie: jar.header() } });
    jar.take(response);
    return response;
  };
  const post = async (path: string, fields: Record<string, string>) => {
    const response = await fetch(new URL(path, stack.gatewayUrl), {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: jar.header() },
      body: new URLSearchParams(fields).toString(),
    });
    jar.take(response);
    return response;
  };
  /** Follows redirects within the gateway until one leaves it (or a page is answered). */
  const follow = async (response: Response): Promise<Response | URL> => {
    while (response.status === 303 || response.status === 302) {
      const location = new URL(response.headers.get("location")!, stack.gatewayUrl);
      if (location.origin !== new URL(stack.gatewayUrl).origin) return location;
      response = await get(location.href);
    }
    return response;
  };

  const interaction = await get(app.authorizeUrl(options));
  const signInPage = await follow(interaction);
  if (signInPage instanceof URL) throw new Error(`redirected to the application before sign-in: ${signInPage.href}`);
  const interactionPath = new URL(signInPage.url).pathname;
  const afterSignIn = await follow(
    await post(`${interactionPath}/login`, { email: person.email, password: person.password, csrf: csrfOf(await signInPage.text()) }),
  );
  if (afterSignIn instanceof URL) throw new Error(`redirected to the application at sign-in: ${afterSignIn.href}`);
  const consentPath = new URL(afterSignIn.url).pathname;
  const html = await afterSignIn.text();
  return {
    status: afterSignIn.status,
    html,
    /** Posts the consent form's decision; answers the application's callback URL. */
    async decide(decision: "allow" | "deny"): Promise<URL> {
      const outcome = await follow(await post(`${consentPath}/consent`, { decision, csrf: csrfOf(html) }));
      if (!(outcome instanceof URL)) throw new Error(`the consent form did not lead back to the application: ${outcome.status} ${await outcome.text()}`);
      return outcome;
    },
  };
}
