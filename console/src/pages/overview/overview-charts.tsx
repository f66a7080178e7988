import type { components } from '@sdk/generated/openapi.js';
import type { ChartConfiguration } from 'chart.js';
import { useMemo } from 'react';
import { Link, useNavigate } from 'react-router';
import { BarChart, PALETTE } from '../../components/chart.js';
import { formatNumber } from '../../components/ui.js';
import { alertsLink, bucketRange, interactionsLink, riskBounds, type Range } from './links.js';

type Stats = components['schemas']['Stats'];
const SEVERITIES = ['critical', 'high', 'medium', 'low'] as const;

export function OverviewCharts({ stats, range }: { stats: Stats; range: Range }) {
  const { interactions, alerts } = stats;
  const highRisk = interactions.by_risk_band.filter((band) => band.min >= 0.6).reduce((sum, band) => sum + band.count, 0);
  return (
    <>
      <div className="kpis">
        <Kpi label="Interactions" value={interactions.total} to={interactionsLink(range)} />
        <Kpi label="High risk (score ≥ 0.6)" value={highRisk} to={interactionsLink(range, { risk_score_min: '0.6' })} />
        <Kpi label="Open alerts" value={alerts.open} to={alertsLink({ status: 'open' })} />
        {SEVERITIES.map((severity) => (
          <Kpi key={severity} label={`Open ${severity}`} value={alerts.open_by_severity[severity]} to={alertsLink({ status: 'open', severity })} />
        ))}
      </div>
      {stats.series && <SeriesCard series={stats.series} range={range} />}
      <div className="grid">
        <RiskBands bands={interactions.by_risk_band} range={range} />
        <ClassificationTypes types={interactions.by_classification_type} range={range} />
      </div>
      <TopUsers users={stats.top_users} range={range} />
    </>
  );
}

function Kpi({ label, value, to }: { label: string; value: number; to: string }) {
  return (
    <Link className="kpi" to={to} aria-label={`${label}: ${formatNumber(value)}`}>
      <div className="muted">{label}</div>
      <div className="value">{formatNumber(value)}</div>
    </Link>
  );
}

function SeriesCard({ series, range }: { series: NonNullable<Stats['series']>; range: Range }) {
  const navigate = useNavigate();
  const platforms = series.buckets[0]?.by_platform.map((p) => p.platform_id) ?? [];
  const hasOther = series.buckets.some((bucket) => bucket.other > 0);
  const labelOf = (start: string) => new Date(start).toLocaleString(undefined, series.interval === 'hour'
    ? { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' }
    : { month: 'short', day: 'numeric' });
  const config = useMemo<ChartConfiguration<'bar'>>(() => ({
    type: 'bar',
    data: {
      labels: series.buckets.map((bucket) => labelOf(bucket.start)),
      datasets: [
        ...platforms.map((platform, i) => ({
          label: platform,
          data: series.buckets.map((bucket) => bucket.by_platform[i]?.count ?? 0),
          backgroundColor: PALETTE[i % PALETTE.length],
        })),
        ...(hasOther ? [{ label: 'other platforms', data: series.buckets.map((bucket) => bucket.other), backgroundColor: PALETTE[10] }] : []),
      ],
    },
    options: { scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } } },
  }), [series]);

  const open = (index: number, datasetIndex: number) => {
    const bucket = series.buckets[index];
    if (!bucket) return;
    const bounds = bucketRange(range, bucket.start, series.buckets[index + 1]?.start);
    navigate(interactionsLink(bounds, { platform_id: platforms[datasetIndex] }));
  };

  return (
    <section className="card" aria-labelledby="series-title">
      <h2 id="series-title">Interactions per {series.interval} by platform</h2>
      <BarChart label={`Interactions per ${series.interval}, stacked by platform`} config={config} onSelect={open} />
      <p className="muted">
        Platforms:{' '}
        {platforms.map((platform, i) => (
          <span key={platform}>{i > 0 && ', '}<Link to={interactionsLink(range, { platform_id: platform })}>{platform}</Link></span>
        ))}
      </p>
    </section>
  );
}

function RiskBands({ bands, range }: { bands: Stats['interactions']['by_risk_band']; range: Range }) {
  const navigate = useNavigate();
  const config = useMemo<ChartConfiguration<'bar'>>(() => ({
    type: 'bar',
    data: {
      labels: bands.map((band) => band.band),
      datasets: [{ label: 'Interactions', data: bands.map((band) => band.count), backgroundColor: ['#2a9d8f', '#8ab17d', '#e9c46a', '#f4a261', '#d1495b'] }],
    },
    options: { plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
  }), [bands]);
  const linkOf = (band: (typeof bands)[number]) => interactionsLink(range, riskBounds(band.min, band.max));
  return (
    <section className="card" aria-labelledby="risk-title">
      <h2 id="risk-title">Risk score distribution</h2>
      <BarChart label="Interactions by risk band" config={config} onSelect={(i) => bands[i] && navigate(linkOf(bands[i]))} />
      <p className="muted">
        {bands.map((band, i) => (
          <span key={band.band}>{i > 0 && ' · '}<Link to={linkOf(band)}>{band.band}: {formatNumber(band.count)}</Link></span>
        ))}
      </p>
    </section>
  );
}

function ClassificationTypes({ types, range }: { types: Stats['interactions']['by_classification_type']; range: Range }) {
  const navigate = useNavigate();
  const top = types.slice(0, 10);
  const config = useMemo<ChartConfiguration<'bar'>>(() => ({
    type: 'bar',
    data: { labels: top.map((t) => t.type), datasets: [{ label: 'Interactions', data: top.map((t) => t.count), backgroundColor: PALETTE[0] }] },
    options: { indexAxis: 'y', plugins: { legend: { display: false } }, scales: { x: { beginAtZero: true, ticks: { precision: 0 } } } },
  }), [types]);
  const linkOf = (type: string) => interactionsLink(range, { classification_type: type });
  return (
    <section className="card" aria-labelledby="types-title">
      <h2 id="types-title">Top risk signals</h2>
      {top.length === 0
        ? <p className="muted">No risk signal in this period.</p>
        : (
          <>
            <BarChart label="Interactions by classification type" config={config} onSelect={(i) => top[i] && navigate(linkOf(top[i].type))} />
            <p className="muted">
              {top.map((t, i) => <span key={t.type}>{i > 0 && ' · '}<Link to={linkOf(t.type)}>{t.type}: {formatNumber(t.count)}</Link></span>)}
            </p>
          </>
        )}
    </section>
  );
}

function TopUsers({ users, range }: { users: Stats['top_users']; range: Range }) {
  return (
    <section className="card" aria-labelledby="users-title">
      <h2 id="users-title">Top users by high-risk interactions (score ≥ 0.7)</h2>
      {users === null && (
        <p className="muted">
          Too many high-risk interactions in this period to rank users quickly: choose a shorter period.
        </p>
      )}
      {users?.length === 0 && <p className="muted">No high-risk interaction in this period.</p>}
      {users && users.length > 0 && (
        <table className="data">
          <thead><tr><th>User</th><th className="num">High risk</th><th className="num">All interactions</th></tr></thead>
          <tbody>
            {users.map((user) => (
              <tr key={user.user_id}>
                <td className="mono">{user.user_id}</td>
                <td className="num"><Link to={interactionsLink(range, { user_id: user.user_id, risk_score_min: '0.7' })}>{formatNumber(user.high_risk)}</Link></td>
                <td className="num"><Link to={interactionsLink(range, { user_id: user.user_id })}>{formatNumber(user.total)}</Link></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
