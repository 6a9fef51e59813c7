// The two windows the charts cover, as a pair of toggle buttons: the last 24 hours or the last 7 days.
import type { StatisticsWindow } from '@jobhooks/client/contract/statistics';
import { h } from './dom';

const WORDS: Record<StatisticsWindow, string> = { '24h': 'Last 24 hours', '7d': 'Last 7 days' };

export function windowSwitch(current: StatisticsWindow, choose: (window: StatisticsWindow) => void): HTMLElement {
  return h(
    'div',
    { class: 'window-switch', role: 'group', 'aria-label': 'Time window' },
    ...(['24h', '7d'] as const).map((window) =>
      h(
        'button',
        {
          type: 'button',
          'aria-pressed': String(window === current),
          onclick: () => {
            if (window !== current) choose(window);
          },
        },
        WORDS[window],
      ),
    ),
  );
}
