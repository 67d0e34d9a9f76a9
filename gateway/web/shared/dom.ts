// Tiny DOM builders for pages without a framework. Text always goes in as text nodes, never as
// markup (no innerHTML anywhere), so names typed by people can never become script, and the
// pages' strict CSP (no inline script or style attributes) is never in the way.

type Child = Node | string | null | undefined | false;
type Attributes = Record<string, string | number | boolean | null | undefined>;

/** `h("button", { type: "button", "aria-pressed": false }, "Camera")`; `false`/`null` attributes are left out. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  setAttributes(element, attributes);
  append(element, ...children);
  return element;
}

export function setAttributes(element: Element, attributes: Attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) element.removeAttribute(name);
    // aria-* and data-* booleans are spelled out ("true"/"false"); HTML booleans are present or not.
    else if (value === true && !name.startsWith("aria-") && !name.startsWith("data-")) element.setAttribute(name, "");
    else element.setAttribute(name, String(value));
  }
}

export function append(parent: Node, ...children: Child[]) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "string" ? document.createTextNode(child) : child);
  }
}

/** Replaces every child of `parent`. */
export function replaceChildren(parent: Element, ...children: Child[]) {
  parent.replaceChildren();
  append(parent, ...children);
}

const SVG = "http://www.w3.org/2000/svg";

/** A decorative 24×24 icon from path data (hidden from assistive technology: the control has the name). */
export function icon(paths: string[], className = "icon"): SVGSVGElement {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 24 24");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("focusable", "false");
  svg.setAttribute("class", className);
  for (const d of paths) {
    const path = document.createElementNS(SVG, "path");
    path.setAttribute("d", d);
    svg.appendChild(path);
  }
  return svg;
}

/**
 * A polite live region: `announce("Bob joined")` is read by screen readers without moving focus.
 * The same text twice in a row is still announced (the region is cleared first).
 */
export function createAnnouncer(className = "visually-hidden"): { element: HTMLElement; announce(text: string): void } {
  const element = h("div", { class: className, "aria-live": "polite", "aria-atomic": "false" });
  let timer: number | undefined;
  let pending: string[] = [];
  return {
    element,
    announce(text: string) {
      pending.push(text);
      window.clearTimeout(timer);
      // Batched: several joins at once are read as one message instead of interrupting each other.
      timer = window.setTimeout(() => {
        element.replaceChildren(...pending.map((line) => h("p", {}, line)));
        pending = [];
      }, 150);
    },
  };
}
