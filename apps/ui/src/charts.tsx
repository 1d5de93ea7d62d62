// Plain SVG charts: a stacked bar per day and a line over samples. Each has a text alternative.

const PALETTE = ['#2f6fde', '#e0662f', '#2a9d6f', '#a347c9', '#c9a227', '#d1416b', '#3aa6b9', '#7a7a7a'];

export interface DailyPoint {
  readonly date: string;
  readonly name: string;
  readonly count: number;
}

/** Every day from `since` to today (UTC), so empty days show as gaps, not as missing columns. */
export function daysFrom(since: string): string[] {
  const days: string[] = [];
  const end = new Date().toISOString().slice(0, 10);
  for (let day = new Date(`${since}T00:00:00Z`); ; day = new Date(day.getTime() + 86_400_000)) {
    const text = day.toISOString().slice(0, 10);
    days.push(text);
    if (text >= end || days.length > 400) return days;
  }
}

export function StackedBars(props: { title: string; since: string; points: readonly DailyPoint[] }) {
  const days = daysFrom(props.since);
  const names = [...new Set(props.points.map((p) => p.name))].sort();
  const color = (name: string) => PALETTE[names.indexOf(name) % PALETTE.length];
  const totals = new Map<string, number>();
  for (const p of props.points) totals.set(p.date, (totals.get(p.date) ?? 0) + p.count);
  const max = Math.max(1, ...totals.values());
  const width = 600;
  const height = 160;
  const barWidth = width / days.length;
  const summary = names
    .map((name) => `${name}: ${props.points.filter((p) => p.name === name).reduce((n, p) => n + p.count, 0)}`)
    .join(', ');
  return (
    <figure class="chart">
      <figcaption>{props.title}</figcaption>
      <svg
        viewBox={`0 0 ${width} ${height + 16}`}
        role="img"
        aria-label={`${props.title}: ${summary || 'none'} since ${props.since}`}
      >
        <line x1="0" x2={width} y1={height} y2={height} class="axis" />
        {days.map((day, i) => {
          let y = height;
          return (
            <g key={day}>
              {names.map((name) => {
                const count = props.points.find((p) => p.date === day && p.name === name)?.count ?? 0;
                if (count === 0) return null;
                const h = (count / max) * (height - 8);
                y -= h;
                return (
                  <rect
                    key={name}
                    x={i * barWidth + 1}
                    y={y}
                    width={Math.max(barWidth - 2, 1)}
                    height={h}
                    fill={color(name)}
                  >
                    <title>{`${day} ${name}: ${count}`}</title>
                  </rect>
                );
              })}
            </g>
          );
        })}
        <text x="0" y={height + 14} class="tick">
          {props.since}
        </text>
        <text x={width} y={height + 14} class="tick" text-anchor="end">
          {days[days.length - 1]}
        </text>
        <text x="2" y="10" class="tick">
          {max}
        </text>
      </svg>
      <ul class="legend">
        {names.map((name) => (
          <li key={name}>
            <span class="swatch" style={{ background: color(name) }} aria-hidden="true" />
            {name}
          </li>
        ))}
      </ul>
    </figure>
  );
}

export interface Sample {
  readonly at: number;
  readonly value: number | null;
}

/** A line over the samples taken while the page is open (each series its own scale). */
export function LineChart(props: { title: string; unit: string; samples: readonly Sample[] }) {
  const width = 300;
  const height = 80;
  const values = props.samples.map((s) => s.value).filter((v): v is number => v !== null);
  const max = Math.max(1, ...values);
  const step = props.samples.length > 1 ? width / (props.samples.length - 1) : width;
  const points = props.samples
    .map((s, i) =>
      s.value === null
        ? null
        : `${(i * step).toFixed(1)},${(height - (s.value / max) * (height - 6)).toFixed(1)}`,
    )
    .filter(Boolean)
    .join(' ');
  const last = values[values.length - 1];
  const label = last === undefined ? 'no data yet' : `${last} ${props.unit}`;
  return (
    <figure class="chart small">
      <figcaption>
        {props.title}: <strong>{label}</strong>
      </figcaption>
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${props.title}, latest ${label}, max ${max}`}
      >
        <line x1="0" x2={width} y1={height - 1} y2={height - 1} class="axis" />
        {points && <polyline points={points} fill="none" stroke={PALETTE[0]} stroke-width="2" />}
        {points
          .split(' ')
          .filter(Boolean)
          .map((point) => {
            const [x, y] = point.split(',');
            return <circle key={point} cx={x} cy={y} r="3" fill={PALETTE[0]} />;
          })}
      </svg>
    </figure>
  );
}
