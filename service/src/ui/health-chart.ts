// A chart of deliveries per hour: attempts succeeded and failed as stacked bars, response times (p50 and p95) as
// lines beneath, and the moments a circuit opened or a webhook was archived marked across both. Hovering a bar, or
// moving along the bars with the arrow keys once the chart has focus, shows that hour's numbers; the same numbers
// are a table under the chart, for screen readers and for anyone who would rather read. SVG drawn here, no library.
import type { StatisticsBucket, StatisticsMarker } from '@jobhooks/client/contract/statistics';
import { dateOf } from './format';
import { h } from './dom';
import { niceCeiling, svg } from './svg';

const WIDTH = 720;
const BARS_TOP = 10;
const BARS_HEIGHT = 150;
const LATENCY_TOP = 185;
const LATENCY_HEIGHT = 50;
const HEIGHT = 262;
const LEFT = 44;
const RIGHT = 8;

/** An hour's start as a person reads it: "Nov 27, 14:00". */
export function hourText(start: string): string {
  return dateOf(start).toLocaleString(undefined, {
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
  });
}

const msText = (ms: number | null) => (ms === null ? '—' : `≤ ${ms.toLocaleString()} ms`);

/** One hour's numbers in a sentence, for the tooltip. */
export function bucketSentence(b: StatisticsBucket): string {
  return (
    `${hourText(b.start)}: ${b.attempts_succeeded} attempts succeeded, ${b.attempts_failed} failed; ` +
    `deliveries ${b.deliveries_succeeded} succeeded, ${b.deliveries_failed} failed; ` +
    `p50 ${msText(b.p50_ms)}, p95 ${msText(b.p95_ms)}`
  );
}

const MARKER_WORDS: Record<StatisticsMarker['kind'], string> = {
  circuit_opened: 'Circuit opened',
  archived: 'Archived',
};

function numbersTable(buckets: readonly StatisticsBucket[], caption: string): HTMLElement {
  const head = [
    'Hour',
    'Attempts succeeded',
    'Attempts failed',
    'Deliveries succeeded',
    'Deliveries failed',
    'p50',
    'p95',
  ];
  return h(
    'details',
    { class: 'chart-table' },
    h('summary', {}, 'Show these numbers as a table'),
    h(
      'div',
      { class: 'table-scroll' },
      h(
        'table',
        {},
        h('caption', {}, caption),
        h('thead', {}, h('tr', {}, ...head.map((text) => h('th', { scope: 'col' }, text)))),
        h(
          'tbody',
          {},
          ...buckets.map((b) =>
            h(
              'tr',
              { 'data-hour': b.start },
              h('th', { scope: 'row' }, hourText(b.start)),
              h('td', {}, String(b.attempts_succeeded)),
              h('td', {}, String(b.attempts_failed)),
              h('td', {}, String(b.deliveries_succeeded)),
              h('td', {}, String(b.deliveries_failed)),
              h('td', {}, msText(b.p50_ms)),
              h('td', {}, msText(b.p95_ms)),
            ),
          ),
        ),
      ),
    ),
  );
}

export interface ChartInput {
  title: string;
  buckets: readonly StatisticsBucket[];
  markers?: readonly StatisticsMarker[];
}

export function healthChart({ title, buckets, markers = [] }: ChartInput): HTMLElement {
  const plotWidth = WIDTH - LEFT - RIGHT;
  const step = plotWidth / Math.max(buckets.length, 1);
  const topCount = niceCeiling(Math.max(0, ...buckets.map((b) => b.attempts_succeeded + b.attempts_failed)));
  const topMs = niceCeiling(Math.max(0, ...buckets.map((b) => b.p95_ms ?? 0)));
  const yOf = (n: number) => BARS_TOP + BARS_HEIGHT - (n / topCount) * BARS_HEIGHT;
  const msY = (ms: number) => LATENCY_TOP + LATENCY_HEIGHT - (ms / topMs) * LATENCY_HEIGHT;
  const first = buckets[0] ? Number(buckets[0].start) : 0;
  const hourMicros = 3600 * 1_000_000;
  const xOfTime = (micros: number) => LEFT + ((micros - first) / hourMicros) * step;

  const bars = buckets.map((b, i) => {
    const x = LEFT + i * step;
    const w = Math.max(step - (step > 4 ? 1.5 : 0.5), 0.5);
    return svg(
      'g',
      { class: 'bar', 'data-index': i },
      svg('rect', { class: 'hit', x, y: BARS_TOP, width: step, height: LATENCY_TOP + LATENCY_HEIGHT - BARS_TOP }),
      b.attempts_succeeded > 0 &&
        svg('rect', {
          class: 'ok',
          x,
          width: w,
          y: yOf(b.attempts_succeeded),
          height: BARS_HEIGHT + BARS_TOP - yOf(b.attempts_succeeded),
        }),
      b.attempts_failed > 0 &&
        svg('rect', {
          class: 'bad',
          x,
          width: w,
          y: yOf(b.attempts_succeeded + b.attempts_failed),
          height: yOf(b.attempts_succeeded) - yOf(b.attempts_succeeded + b.attempts_failed),
        }),
    );
  });
  // A line through the hours that had attempts, and a dot on each, so a lone busy hour still shows its times.
  const line = (pick: (b: StatisticsBucket) => number | null, cls: string): SVGElement => {
    const points = buckets
      .map((b, i) => [LEFT + i * step + step / 2, pick(b)] as const)
      .filter((p): p is readonly [number, number] => p[1] !== null)
      .map(([x, ms]) => [x, msY(ms)] as const);
    return svg(
      'g',
      { class: cls },
      points.length > 1 &&
        svg('polyline', { points: points.map(([x, y]) => `${x.toFixed(1)},${y.toFixed(1)}`).join(' ') }),
      ...points.map(([x, y]) => svg('circle', { cx: x.toFixed(1), cy: y.toFixed(1), r: 2.5 })),
    );
  };
  const labelEvery = buckets.length > 48 ? 24 : 6;
  const xLabels = buckets
    .map((b, i) => [b, i] as const)
    .filter(([, i]) => i % labelEvery === 0)
    .map(([b, i]) => svg('text', { class: 'axis', x: LEFT + i * step, y: HEIGHT - 4 }, hourText(b.start)));
  const markerLines = markers.map((m) =>
    svg(
      'g',
      { class: `marker ${m.kind}` },
      svg('line', {
        x1: xOfTime(Number(m.at)),
        x2: xOfTime(Number(m.at)),
        y1: BARS_TOP,
        y2: LATENCY_TOP + LATENCY_HEIGHT,
      }),
      svg('text', { x: xOfTime(Number(m.at)) + 3, y: BARS_TOP + 10 }, MARKER_WORDS[m.kind]),
    ),
  );
  const totalOk = buckets.reduce((n, b) => n + b.attempts_succeeded, 0);
  const totalBad = buckets.reduce((n, b) => n + b.attempts_failed, 0);
  const summary =
    `${title}: ${totalOk} attempts succeeded and ${totalBad} failed over ${buckets.length} hours. ` +
    'Use the left and right arrow keys to read each hour.';
  const highlight = svg('rect', {
    class: 'highlight',
    x: 0,
    y: BARS_TOP,
    width: step,
    height: LATENCY_TOP + LATENCY_HEIGHT - BARS_TOP,
    visibility: 'hidden',
  });
  const chart = svg(
    'svg',
    {
      class: 'health-chart',
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      role: 'img',
      'aria-label': summary,
      tabindex: 0,
    },
    svg('text', { class: 'axis', x: LEFT - 4, y: BARS_TOP + 8, 'text-anchor': 'end' }, String(topCount)),
    svg('text', { class: 'axis', x: LEFT - 4, y: BARS_TOP + BARS_HEIGHT, 'text-anchor': 'end' }, '0'),
    svg('text', { class: 'axis', x: LEFT - 4, y: LATENCY_TOP + 8, 'text-anchor': 'end' }, `${topMs} ms`),
    svg('line', {
      class: 'baseline',
      x1: LEFT,
      x2: WIDTH - RIGHT,
      y1: BARS_TOP + BARS_HEIGHT,
      y2: BARS_TOP + BARS_HEIGHT,
    }),
    svg('line', {
      class: 'baseline',
      x1: LEFT,
      x2: WIDTH - RIGHT,
      y1: LATENCY_TOP + LATENCY_HEIGHT,
      y2: LATENCY_TOP + LATENCY_HEIGHT,
    }),
    highlight,
    ...bars,
    line((b) => b.p50_ms, 'p50'),
    line((b) => b.p95_ms, 'p95'),
    ...markerLines,
    ...xLabels,
  );
  const readout = h(
    'p',
    { class: 'chart-readout', 'aria-live': 'polite' },
    'Hover or focus the chart to read an hour.',
  );
  let selected = -1;
  const select = (index: number) => {
    const bucket = buckets[index];
    if (bucket === undefined) return;
    selected = index;
    highlight.setAttribute('x', String(LEFT + index * step));
    highlight.setAttribute('visibility', 'visible');
    readout.textContent = bucketSentence(bucket);
  };
  chart.addEventListener('mouseover', (event) => {
    const bar = (event.target as Element).closest('g.bar');
    if (bar) select(Number(bar.getAttribute('data-index')));
  });
  chart.addEventListener('focus', () => select(selected === -1 ? buckets.length - 1 : selected));
  chart.addEventListener('keydown', (event) => {
    const moves: Record<string, number> = {
      ArrowLeft: selected - 1,
      ArrowRight: selected + 1,
      Home: 0,
      End: buckets.length - 1,
    };
    const next = moves[event.key];
    if (next === undefined) return;
    event.preventDefault();
    select(Math.min(Math.max(next, 0), buckets.length - 1));
  });
  const legend = h(
    'p',
    { class: 'chart-legend' },
    h('span', { class: 'key ok' }, 'Succeeded'),
    h('span', { class: 'key bad' }, 'Failed'),
    h('span', { class: 'key p50' }, 'p50 response time'),
    h('span', { class: 'key p95' }, 'p95 response time'),
    ...markers.map((m) =>
      h('span', { class: `key marker ${m.kind}` }, `${MARKER_WORDS[m.kind]}: ${hourText(m.at)} — ${m.detail}`),
    ),
  );
  return h(
    'figure',
    { class: 'chart' },
    h('figcaption', {}, title),
    h('div', { class: 'chart-frame' }, chart),
    legend,
    readout,
    numbersTable(buckets, `${title}, per hour`),
  );
}
