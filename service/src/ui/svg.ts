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
 * A sparkline of attempts per hour: a bar per hour, failed stacked on succeeded, scaled to the busiest hour; each
 * series is one path, so a table of 1,000 sparklines stays light. The picture is decoration for sighted readers;
 * `label` says what it shows in words.
 */
export function sparkline(succeeded: readonly number[], failed: readonly number[], label: string): SVGSVGElement {
  const width = 96;
  const height = 24;
  const barWidth = width / Math.max(succeeded.length, 1);
  const w = Math.max(barWidth - 0.5, 0.5).toFixed(2);
  const top = Math.max(1, ...succeeded.map((n, i) => n + (failed[i] ?? 0)));
  let ok = '';
  let bad = '';
  succeeded.forEach((okCount, i) => {
    const badCount = failed[i] ?? 0;
    const okHeight = (okCount / top) * height;
    const badHeight = (badCount / top) * height;
    const x = (i * barWidth).toFixed(2);
    if (okCount > 0) ok += `M${x} ${height}v${(-okHeight).toFixed(2)}h${w}v${okHeight.toFixed(2)}z`;
    if (badCount > 0)
      bad += `M${x} ${(height - okHeight).toFixed(2)}v${(-badHeight).toFixed(2)}h${w}v${badHeight.toFixed(2)}z`;
  });
  return svg(
    'svg',
    { class: 'sparkline', viewBox: `0 0 ${width} ${height}`, width, height, role: 'img', 'aria-label': label },
    svg('line', { class: 'baseline', x1: 0, x2: width, y1: height - 0.5, y2: height - 0.5 }),
    ok !== '' && svg('path', { class: 'ok', d: ok }),
    bad !== '' && svg('path', { class: 'bad', d: bad }),
  );
}
