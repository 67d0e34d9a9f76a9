// Tiny DOM builders for pages without a framework. Text always goes in as text nodes, never as
// markup (no innerHTML anywhere), so names typed by people can never become script, and the
// pages' strict CSP (no inline script or style attributes) is never in the way.

export type Child = Node | string | number | null | undefined | false | Child[];
type AttributeValue = string | number | boolean | null | undefined;
type Attributes = Record<string, AttributeValue | EventListener>;

/**
 * The one element builder of the pages: `h("button", { type: "button", "aria-pressed": false,
 * onclick: () => ... }, "Camera")`. `false`/`null` attributes are left out; a function is an event
 * listener (`onclick` listens to `click`); children may be nested lists, numbers are text.
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Attributes = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  const plain: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(attributes)) {
    if (typeof value === "function") element.addEventListener(name.replace(/^on/, ""), value);
    else plain[name] = value;
  }
  setAttributes(element, plain);
  append(element, ...children);
  return element;
}

export function setAttributes(element: Element, attributes: Record<string, AttributeValue>) {
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
    if (Array.isArray(child)) append(parent, ...child);
    else parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

let nextId = 0;
/** An id unique on the page, for `aria-labelledby`, `for` and the like. */
export const uniqueId = (prefix: string) => `${prefix}-${++nextId}`;

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
