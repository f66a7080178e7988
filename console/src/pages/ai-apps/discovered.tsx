import { Link } from 'react-router';
import { Empty, formatDate, formatNumber } from '../../components/ui.js';
import { interactionsLink, type Range } from '../overview/links.js';
import { CATEGORIES, label, type App } from './apps.js';
import { AppNameHeader, RiskTierBadge, StatusBadge } from './badges.js';

/** The platforms first used in the period: what to review first, those the catalog lacks above all. */
export function Discovered({ apps, range }: { apps: App[]; range: Range }) {
  return (
    <section aria-labelledby="discovered-heading" className="card">
      <h2 id="discovered-heading" style={{ marginTop: 0 }}>Newly discovered</h2>
      <p className="muted">
        AI apps whose first recorded interaction falls within the period. Those marked “not in catalog” have not been assessed by
        anyone yet: review them first.
      </p>
      {apps.length === 0 ? <Empty>No AI app was used for the first time in this period.</Empty> : (
        <table className="data" aria-label="Newly discovered AI apps">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Category</th>
              <th scope="col">Risk tier</th>
              <th scope="col">First seen</th>
              <th scope="col" className="num">Interactions</th>
              <th scope="col" className="num">Users</th>
              <th scope="col">Status</th>
            </tr>
          </thead>
          <tbody>
            {apps.map(({ platform, usage }) => (
              <tr key={platform.id} data-platform-id={platform.id}>
                <AppNameHeader platform={platform} />
                <td>{label(CATEGORIES, platform.category)}</td>
                <td><RiskTierBadge tier={platform.risk_tier} /></td>
                <td>{formatDate(usage?.first_seen)}</td>
                <td className="num">
                  {usage && <Link to={interactionsLink(range, { platform_id: platform.id })}>{formatNumber(usage.interactions)}</Link>}
                </td>
                <td className="num">{usage ? formatNumber(usage.users) : '0'}</td>
                <td><StatusBadge status={platform.status} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
