// SVG elements built from data, like dom.ts's h() for HTML: the charts are drawn by the UI's own code, with no
// charting library, so the page stays one small bundle under its strict CSP.
const SVG_NS = 'http://www.w3.org/2000/svg';

type SvgAttributes = Record<string, string | number | undefined | null | false>;

export function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attributes: SvgAttributes = {},
  ...children: Array<SVGElement | string | null | false>
): SVGElementTagNameMap[K] {
  const element = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    element.setAttribute(name, String(value));
  }
  for (const child of children) {
    if (child === null || child === false) continue;
    element.appendChild(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return element;
}

/** A tidy upper end for an axis: 1, 2 or 5 times a power of ten, at least `max` (and at least 1). */
export function niceCeiling(max: number): number {
  if (max <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/**
 * A sparkline of attempts per hour: a bar per hour, failed stacked on succeeded, scaled to the busiest hour. The
 * picture is decoration for sighted readers; `label` says what it shows in words.
 */
export function sparkline(succeeded: readonly number[], failed: readonly number[], label: string): SVGSVGElement {
  const width = 96;
  const height = 24;
  const hours = succeeded.length;
  const barWidth = width / Math.max(hours, 1);
  const top = Math.max(1, ...succeeded.map((n, i) => n + (failed[i] ?? 0)));
  const bars: SVGElement[] = [];
  succeeded.forEach((ok, i) => {
    const bad = failed[i] ?? 0;
    const okHeight = (ok / top) * height;
    const badHeight = (bad / top) * height;
    const x = (i * barWidth).toFixed(2);
    const w = Math.max(barWidth - 0.5, 0.5).toFixed(2);
    if (ok > 0)
      bars.push(
        svg('rect', { class: 'ok', x, width: w, y: (height - okHeight).toFixed(2), height: okHeight.toFixed(2) }),
      );
    if (bad > 0)
      bars.push(
        svg('rect', {
          class: 'bad',
          x,
          width: w,
          y: (height - okHeight - badHeight).toFixed(2),
          height: badHeight.toFixed(2),
        }),
      );
  });
  return svg(
    'svg',
    { class: 'sparkline', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label },
    svg('line', { class: 'baseline', x1: 0, x2: width, y1: height - 0.5, y2: height - 0.5 }),
    ...bars,
  );
}
