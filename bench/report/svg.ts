/** A line of a chart: points in data units, drawn in order. */
export interface Series {
  name: string;
  points: [number, number][];
  color: string;
  dashed?: boolean;
  /** Draw a dot at each point (few points), or not (a dense curve). */
  dots?: boolean;
}

export interface ChartOptions {
  title: string;
  xLabel: string;
  yLabel: string;
  series: Series[];
  /** Logarithmic x axis (base 10), for sizes spanning decades. */
  xLog?: boolean;
  /** Fixed axis ranges; by default from the data (y from 0). */
  xRange?: [number, number];
  yRange?: [number, number];
  /** Tick labels of the x axis; by default 5 even steps. */
  xTicks?: number[];
  yTickFormat?: (value: number) => string;
  xTickFormat?: (value: number) => string;
}

const WIDTH = 720;
const HEIGHT = 420;
const MARGIN = { top: 40, right: 190, bottom: 50, left: 64 };

const escapeXml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** Round, readable tick values covering [min, max]. */
export function niceTicks(min: number, max: number, count = 5): number[] {
  const span = max - min || 1;
  const raw = span / count;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = ([1, 2, 2.5, 5, 10].find((factor) => factor * magnitude >= raw) ?? 10) * magnitude;
  // From the last step at or below min to the first at or above max, so the axis covers every point.
  const first = Math.floor(min / step + 1e-9);
  const last = Math.ceil(max / step - 1e-9);
  return Array.from({ length: last - first + 1 }, (_, i) => Math.round((first + i) * step * 1e9) / 1e9);
}

const defaultFormat = (value: number) => (Math.abs(value) >= 1000 ? `${value / 1000}k` : String(value));

/** A self-contained SVG line chart (axes, grid, legend), readable in a browser and on GitHub. */
export function lineChart(options: ChartOptions): string {
  const all = options.series.flatMap((series) => series.points);
  const xs = all.map(([x]) => x);
  const ys = all.map(([, y]) => y);
  const [x0, x1] = options.xRange ?? [Math.min(...xs), Math.max(...xs)];
  const yTicks = niceTicks(options.yRange?.[0] ?? 0, options.yRange?.[1] ?? Math.max(...ys));
  const [y0, y1] = options.yRange ?? [0, yTicks[yTicks.length - 1] ?? 1];
  const tx = options.xLog ? Math.log10 : (value: number) => value;
  const plotWidth = WIDTH - MARGIN.left - MARGIN.right;
  const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
  const px = (x: number) => MARGIN.left + ((tx(x) - tx(x0)) / (tx(x1) - tx(x0) || 1)) * plotWidth;
  const py = (y: number) => MARGIN.top + plotHeight - ((Math.min(y, y1) - y0) / (y1 - y0 || 1)) * plotHeight;
  const xTicks = options.xTicks ?? niceTicks(x0, x1);
  const fx = options.xTickFormat ?? defaultFormat;
  const fy = options.yTickFormat ?? defaultFormat;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${HEIGHT}" viewBox="0 0 ${WIDTH} ${HEIGHT}" font-family="sans-serif" font-size="12">`,
    `<rect width="${WIDTH}" height="${HEIGHT}" fill="white"/>`,
    `<text x="${MARGIN.left}" y="24" font-size="15" font-weight="bold">${escapeXml(options.title)}</text>`,
  ];
  for (const tick of yTicks.filter((value) => value >= y0 && value <= y1)) {
    const y = py(tick).toFixed(1);
    parts.push(
      `<line x1="${MARGIN.left}" x2="${MARGIN.left + plotWidth}" y1="${y}" y2="${y}" stroke="#e5e5e5"/>`,
      `<text x="${MARGIN.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${escapeXml(fy(tick))}</text>`,
    );
  }
  for (const tick of xTicks.filter((value) => value >= x0 && value <= x1)) {
    const x = px(tick).toFixed(1);
    parts.push(
      `<line x1="${x}" x2="${x}" y1="${MARGIN.top}" y2="${MARGIN.top + plotHeight}" stroke="#f0f0f0"/>`,
      `<text x="${x}" y="${MARGIN.top + plotHeight + 16}" text-anchor="middle">${escapeXml(fx(tick))}</text>`,
    );
  }
  parts.push(
    `<rect x="${MARGIN.left}" y="${MARGIN.top}" width="${plotWidth}" height="${plotHeight}" fill="none" stroke="#888"/>`,
    `<text x="${MARGIN.left + plotWidth / 2}" y="${HEIGHT - 10}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`,
    `<text transform="translate(16 ${MARGIN.top + plotHeight / 2}) rotate(-90)" text-anchor="middle">${escapeXml(options.yLabel)}</text>`,
  );
  options.series.forEach((series, i) => {
    const visible = series.points.filter(([x]) => x >= x0 && x <= x1);
    const path = visible.map(([x, y], k) => `${k === 0 ? 'M' : 'L'}${px(x).toFixed(1)} ${py(y).toFixed(1)}`).join(' ');
    const dash = series.dashed ? ' stroke-dasharray="6 4"' : '';
    parts.push(`<path d="${path}" fill="none" stroke="${series.color}" stroke-width="2"${dash}/>`);
    if (series.dots) {
      for (const [x, y] of visible) {
        parts.push(`<circle cx="${px(x).toFixed(1)}" cy="${py(y).toFixed(1)}" r="3.5" fill="${series.color}"/>`);
      }
    }
    const ly = MARGIN.top + 10 + i * 20;
    const lx = MARGIN.left + plotWidth + 14;
    parts.push(
      `<line x1="${lx}" x2="${lx + 22}" y1="${ly}" y2="${ly}" stroke="${series.color}" stroke-width="2"${dash}/>`,
      `<text x="${lx + 28}" y="${ly}" dominant-baseline="middle">${escapeXml(series.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
