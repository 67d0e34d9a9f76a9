import escapeHtml from "escape-html";

/** Markup that is already safe to send: produced by `html`, never by concatenating user input. */
export class SafeHtml {
  readonly value: string;
  constructor(value: string) {
    this.value = value;
  }
  toString() {
    return this.value;
  }
}

export { escapeHtml };

type Interpolation = SafeHtml | string | number | null | undefined | false | Interpolation[];

const render = (value: Interpolation): string => {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(String(value));
};

/**
 * A tagged template that escapes every interpolated value unless it is itself `html`, so a meeting
 * title such as `<script>` is shown as text, never run. The one way a server-rendered page is built:
 * the gateway's pages (gateway/src/pages) and identity's sign-in and consent pages alike.
 */
export function html(strings: TemplateStringsArray, ...values: Interpolation[]): SafeHtml {
  return new SafeHtml(strings.reduce((out, part, index) => out + part + (index < values.length ? render(values[index]!) : ""), ""));
}
