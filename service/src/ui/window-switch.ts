// The two windows the charts cover (the last day or week, contract/statistics.ts), as a pair of toggle buttons.
import { type StatisticsWindow, windowText } from '@jobhooks/client/contract/statistics';
import { h } from './dom';

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
        `Last ${windowText(window)}`,
      ),
    ),
  );
}
