import { Link } from 'react-router';
import { formatDate, formatNumber } from '../../components/ui.js';
import { interactionsLink, type Range } from '../overview/links.js';
import { CATEGORIES, displayName, label, type App, type Platform } from './apps.js';
import { NotInCatalog, RiskTierBadge, StatusBadge, TrainsOnInputs } from './badges.js';

/** A source's page, short enough for a cell: its host and path. */
function sourceText(url: string): string {
  const { host, pathname } = new URL(url);
  const text = `${host}${pathname.replace(/\/$/, '')}`;
  return text.length > 42 ? `${text.slice(0, 41)}…` : text;
}

/**
 * The platforms with their facts, their use in the period and the tenant's status; `onChange`
 * (admins only) opens the status dialog of a row.
 */
export function AppsTable({ apps, range, onChange }: { apps: App[]; range: Range; onChange?: (platform: Platform) => void }) {
  return (
    <div style={{ overflowX: 'auto' }}>
      <table className="data" aria-label="AI apps">
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Vendor</th>
            <th scope="col">Category</th>
            <th scope="col">Risk tier</th>
            <th scope="col">Trains on inputs</th>
            <th scope="col">Data regions</th>
            <th scope="col">Sources</th>
            <th scope="col" className="num">Interactions</th>
            <th scope="col" className="num">Users</th>
            <th scope="col" className="num">High risk</th>
            <th scope="col">First seen</th>
            <th scope="col">Last seen</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {apps.map(({ platform, usage }) => (
            <tr key={platform.id} data-platform-id={platform.id}>
              <th scope="row" style={{ fontWeight: 'normal', background: 'none' }}>
                <strong>{displayName(platform)}</strong> <NotInCatalog platform={platform} />
                {platform.name && <div><small className="muted mono">{platform.id}</small></div>}
              </th>
              <td>{platform.vendor ?? <span className="muted">—</span>}</td>
              <td>{label(CATEGORIES, platform.category)}</td>
              <td><RiskTierBadge tier={platform.risk_tier} /></td>
              <td><TrainsOnInputs value={platform.trains_on_inputs} /></td>
              <td>{platform.data_regions.length > 0 ? platform.data_regions.join(', ') : <span className="muted">unknown</span>}</td>
              <td>
                {platform.sources.map((source) => (
                  <div key={source}><a href={source} target="_blank" rel="noreferrer" title={source}>{sourceText(source)}</a></div>
                ))}
              </td>
              <td className="num">
                {usage
                  ? <Link to={interactionsLink(range, { platform_id: platform.id })} title={`The interactions on ${displayName(platform)} in the period`}>{formatNumber(usage.interactions)}</Link>
                  : <span className="muted">0</span>}
              </td>
              <td className="num">{usage ? formatNumber(usage.users) : <span className="muted">0</span>}</td>
              <td className="num">{usage ? formatNumber(usage.high_risk) : <span className="muted">0</span>}</td>
              <td>{usage ? formatDate(usage.first_seen) : <span className="muted">—</span>}</td>
              <td>{usage ? formatDate(usage.last_seen) : <span className="muted">—</span>}</td>
              <td>
                <StatusBadge status={platform.status} />
                {platform.note && <div><small className="muted">{platform.note}</small></div>}
                {onChange && (
                  <div>
                    <button type="button" className="button link" aria-label={`Change status of ${displayName(platform)}`} onClick={() => onChange(platform)}>
                      Change
                    </button>
                  </div>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
