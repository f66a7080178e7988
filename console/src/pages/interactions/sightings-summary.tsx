import { Link } from 'react-router';
import { fingerprintListLink, formatTimestamp } from './filters.js';
import type { Sightings } from './sightings.js';

/** How many interactions and users hold a value, first and last seen, and the link to them. */
export function SightingsSummary({ sightings: s }: { sightings: Sightings }) {
  if (s.interactions === 0) return <p role="status">No interaction holds this value.</p>;
  return (
    <>
      <dl className="details">
        <dt>Interactions</dt>
        <dd data-testid="seen-interactions">{s.interactions.toLocaleString()}</dd>
        <dt>Users</dt>
        <dd>
          <span data-testid="seen-users">{s.usersAmongNewest === undefined ? s.users.toLocaleString() : `at least ${s.users.toLocaleString()}`}</span>
          {s.usersAmongNewest !== undefined && <small className="muted"> (among the newest {s.usersAmongNewest.toLocaleString()})</small>}
          <br /><small className="muted">Interactions without a user id are not counted.</small>
        </dd>
        <dt>First seen</dt>
        <dd data-testid="seen-first">{s.first_seen ? formatTimestamp(s.first_seen) : '—'}</dd>
        <dt>Last seen</dt>
        <dd data-testid="seen-last">{s.last_seen ? formatTimestamp(s.last_seen) : '—'}</dd>
      </dl>
      <p><Link to={fingerprintListLink(s.fingerprint)}>{s.interactions === 1 ? 'Open this interaction' : `Open these ${s.interactions.toLocaleString()} interactions`}</Link></p>
    </>
  );
}
