import { uniqueId } from "../../shared/dom.ts";

const SVG = "http://www.w3.org/2000/svg";

function svg<K extends keyof SVGElementTagNameMap>(tag: K, attributes: Record<string, string | number>, ...children: (SVGElement | string)[]) {
  const element = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  for (const child of children) element.append(child);
  return element;
}

export interface Bar {
  /** What the bar is of, in words ("27 Nov"). */
  label: string;
  value: number;
  /** The value as a person reads it ("12.5 min"). */
  text: string;
}

const WIDTH = 640;
const HEIGHT = 180;
const PLOT = { left: 60, right: 8, top: 14, bottom: 30 };

/** A round scale maximum at or above `max` (1, 2, 5 × 10ⁿ), so the axis reads plainly. */
function niceCeiling(max: number): number {
  if (max <= 0) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  return ([1, 2, 5, 10].find((step) => step * power >= max) ?? 10) * power;
}

/**
 * A small bar chart in SVG (no library: a few rectangles and lines), read at a glance: one bar per
 * item, a zero line, the scale's top value and the first and last labels. For assistive
 * technology it is one image named `title` whose description says what it shows; each bar also
 * carries its label and value as a tooltip, and the page shows every number in a table beside it.
 * Colours come from the style sheet (classes), as the page's CSP allows no inline styles.
 */
export function barChart(options: { title: string; description: string; bars: Bar[]; className: string; wholeNumbers?: boolean }): SVGSVGElement {
  const titleId = uniqueId("chart-title");
  const descriptionId = uniqueId("chart-description");
  const top = niceCeiling(Math.max(0, ...options.bars.map((bar) => bar.value)));
  const plotWidth = WIDTH - PLOT.left - PLOT.right;
  const plotHeight = HEIGHT - PLOT.top - PLOT.bottom;
  const slot = plotWidth / Math.max(1, options.bars.length);
  const barWidth = Math.max(2, slot * 0.7);
  const y = (value: number) => PLOT.top + plotHeight - (value / top) * plotHeight;
  // A middle grid line at a half (0.5 meetings) would say something that cannot happen.
  const middle =
    options.wholeNumbers && top % 2 !== 0
      ? []
      : [
          svg("line", { x1: PLOT.left, x2: WIDTH - PLOT.right, y1: y(top / 2), y2: y(top / 2), class: "grid" }),
          svg("text", { x: PLOT.left - 6, y: y(top / 2) + 4, class: "axis", "text-anchor": "end" }, String(top / 2)),
        ];
  const chart = svg(
    "svg",
    { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", "aria-labelledby": titleId, "aria-describedby": descriptionId, class: `bar-chart ${options.className}` },
    svg("title", { id: titleId }, options.title),
    svg("desc", { id: descriptionId }, options.description),
    svg("line", { x1: PLOT.left, x2: WIDTH - PLOT.right, y1: y(top), y2: y(top), class: "grid" }),
    svg("text", { x: PLOT.left - 6, y: y(top) + 4, class: "axis", "text-anchor": "end" }, String(top)),
    ...middle,
    svg("text", { x: PLOT.left - 6, y: y(0) + 4, class: "axis", "text-anchor": "end" }, "0"),
  );
  options.bars.forEach((bar, index) => {
    const height = Math.max(bar.value > 0 ? 1 : 0, y(0) - y(bar.value));
    chart.append(
      svg(
        "rect",
        { x: PLOT.left + index * slot + (slot - barWidth) / 2, y: y(0) - height, width: barWidth, height, class: "bar", "data-value": bar.value },
        svg("title", {}, `${bar.label}: ${bar.text}`),
      ),
    );
  });
  chart.append(svg("line", { x1: PLOT.left, x2: WIDTH - PLOT.right, y1: y(0), y2: y(0), class: "baseline" }));
  const first = options.bars[0];
  const last = options.bars.at(-1);
  if (first) chart.append(svg("text", { x: PLOT.left, y: HEIGHT - 6, class: "axis", "text-anchor": "start" }, first.label));
  if (last && last !== first) chart.append(svg("text", { x: WIDTH - PLOT.right, y: HEIGHT - 6, class: "axis", "text-anchor": "end" }, last.label));
  return chart;
}
