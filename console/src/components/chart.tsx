import {
  BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip, type ChartConfiguration,
} from 'chart.js';
import { useEffect, useRef } from 'react';

// Only what the console draws, so the bundle carries no unused chart types.
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip, Legend);

export const PALETTE = ['#2f5bd3', '#e07b39', '#2a9d8f', '#b5446e', '#7a5cc9', '#c9a227', '#4c9be8', '#6b8e23', '#d1495b', '#5d6778', '#a0a7b4'];

/**
 * A Chart.js bar chart on a canvas. `onSelect` receives the index of the clicked bar (and of its
 * dataset): each chart of the overview opens the list behind the bar. The same links are also
 * given as ordinary links beside the chart, for the keyboard and screen readers.
 */
export function BarChart({ label, config, onSelect }: {
  label: string;
  config: ChartConfiguration<'bar'>;
  onSelect?: (index: number, datasetIndex: number) => void;
}) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const select = useRef(onSelect);
  select.current = onSelect;
  useEffect(() => {
    if (!canvas.current) return undefined;
    const chart = new Chart(canvas.current, {
      ...config,
      options: {
        responsive: true,
        maintainAspectRatio: false,
        animation: false,
        ...config.options,
        onClick: (_event, elements) => {
          const element = elements[0];
          if (element) select.current?.(element.index, element.datasetIndex);
        },
        onHover: (event, elements) => {
          const target = event.native?.target as HTMLElement | undefined;
          if (target) target.style.cursor = elements.length && select.current ? 'pointer' : 'default';
        },
      },
    });
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="chart">
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}
