// The API reference page (/docs): Scalar's renderer, bundled into our own assets, showing the
// gateway's OpenAPI document. The server renders the loading state; this script fetches the
// document (so a failure gets our own error state, with the server's message), then mounts Scalar
// on the empty element beside the state and removes the state.
import "./zod-without-eval.ts";
import { createApiReference } from "@scalar/api-reference";
import "@scalar/api-reference/style.css";
import "./api-reference.css";

const mount = document.getElementById("api-reference");
const state = document.getElementById("docs-state");
const url = mount?.dataset.openapiUrl;

async function loadDocument(url: string): Promise<Record<string, unknown>> {
  const response = await fetch(url, { headers: { accept: "application/json" } });
  if (!response.ok) {
    const body = (await response.json().catch(() => ({}))) as { error?: string };
    throw new Error(body.error ?? `The server answered ${response.status} ${response.statusText}.`);
  }
  return (await response.json()) as Record<string, unknown>;
}

function showError(message: string) {
  if (!state) return;
  const heading = document.createElement("h1");
  heading.textContent = "The API reference could not be loaded";
  const text = document.createElement("p");
  text.setAttribute("role", "alert");
  text.textContent = message;
  const retry = document.createElement("p");
  const link = document.createElement("a");
  link.href = window.location.href;
  link.textContent = "Try again";
  retry.append(link);
  state.replaceChildren(heading, text, retry);
}

if (mount && url) {
  loadDocument(url).then(
    (content) => {
      createApiReference(mount, {
        content,
        // Hosted fonts, telemetry, the MCP and AI-agent features and the hosted API client (a link
        // to client.scalar.com) reach Scalar's servers; this page talks only to us.
        hideClientButton: true,
        withDefaultFonts: false,
        telemetry: false,
        mcp: { disabled: true },
        agent: { disabled: true },
        showDeveloperTools: "never",
        documentDownloadType: "json",
        onLoaded: () => state?.remove(),
      });
    },
    (error: unknown) => showError(error instanceof Error ? error.message : String(error)),
  );
}
