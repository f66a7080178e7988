import { Link } from 'react-router';
import { formatNumber } from '../../components/ui.js';
import { interactionsLink, type Range } from '../overview/links.js';
import { CATEGORIES, displayName, label, type App, type Platform } from './apps.js';
import { AppNameHeader, RiskTierBadge, StatusBadge, TrainsOnInputs } from './badges.js';

/** The sources' links as their hosts (the whole address in the tooltip), numbered when a host has several pages. */
function sourceLinks(sources: string[]): { url: string; text: string }[] {
  const hosts = sources.map((url) => new URL(url).host.replace(/^www\./, ''));
  return sources.map((url, index) => {
    const same = hosts.filter((host) => host === hosts[index]).length;
    const rank = hosts.slice(0, index + 1).filter((host) => host === hosts[index]).length;
    return { url, text: same > 1 ? `${hosts[index]} (${rank})` : hosts[index]! };
  });
}

const shortDateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'short' });

/**
 * The platforms with their facts, their use in the period and the tenant's status; `onChange`
 * (admins only) opens the status dialog of a row.
 */
export function AppsTable({ apps, range, onChange }: { apps: App[]; range: Range; onChange?: (platform: Platform) => void }) {
  return (
    <div style={{ overflowX: 'auto' }}>
      <table className="data compact" aria-label="AI apps">
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
            <th scope="col">First / last seen</th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {apps.map(({ platform, usage }) => (
            <tr key={platform.id} data-platform-id={platform.id}>
              <AppNameHeader platform={platform} withId />
              <td>{platform.vendor ?? <span className="muted">—</span>}</td>
              <td>{label(CATEGORIES, platform.category)}</td>
              <td><RiskTierBadge tier={platform.risk_tier} /></td>
              <td><TrainsOnInputs value={platform.trains_on_inputs} /></td>
              <td>{platform.data_regions.length > 0 ? platform.data_regions.join(', ') : <span className="muted">unknown</span>}</td>
              <td>
                {sourceLinks(platform.sources).map(({ url, text }) => (
                  <div key={url} className="nowrap"><a href={url} target="_blank" rel="noreferrer" title={url}>{text}</a></div>
                ))}
              </td>
              <td className="num">
                {usage
                  ? <Link to={interactionsLink(range, { platform_id: platform.id })} title={`The interactions on ${displayName(platform)} in the period`}>{formatNumber(usage.interactions)}</Link>
                  : <span className="muted">0</span>}
              </td>
              <td className="num">{usage ? formatNumber(usage.users) : <span className="muted">0</span>}</td>
              <td className="num">{usage ? formatNumber(usage.high_risk) : <span className="muted">0</span>}</td>
              <td className="nowrap">
                {usage
                  ? <><div>{shortDateTime.format(new Date(usage.first_seen))}</div><div className="muted">{shortDateTime.format(new Date(usage.last_seen))}</div></>
                  : <span className="muted">—</span>}
              </td>
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
