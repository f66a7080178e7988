import type { components } from '@sdk/generated/openapi.js';
import { formatDate } from '../../components/ui.js';

type AuditEntry = components['schemas']['AuditEntry'];

export function EntriesTable({ entries }: { entries: AuditEntry[] }) {
  return (
    <table className="data" aria-label="Audit entries">
      <thead>
        <tr>
          <th>Time</th>
          <th>Actor</th>
          <th>Action</th>
          <th>Target</th>
          <th>Address</th>
          <th>Details</th>
        </tr>
      </thead>
      <tbody>
        {entries.map((entry) => (
          <tr key={entry.id}>
            <td>{formatDate(entry.occurred_at)}</td>
            <td>
              {entry.actor_label ?? <span className="muted">{entry.actor_id ?? '—'}</span>}
              <div className="muted">{entry.actor_type}</div>
            </td>
            <td><code>{entry.action}</code></td>
            <td>
              {entry.target_type ?? <span className="muted">—</span>}
              {entry.target_id && <div><code>{entry.target_id}</code></div>}
            </td>
            <td>{entry.ip ?? <span className="muted">—</span>}</td>
            <td><Details entry={entry} /></td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** The entry's details, folded: a native <details> opens with a click or the keyboard. */
function Details({ entry }: { entry: AuditEntry }) {
  const empty = Object.keys(entry.details).length === 0;
  if (empty && !entry.request_id) return <span className="muted">—</span>;
  return (
    <details>
      <summary>Show</summary>
      {!empty && <pre className="mono" style={{ whiteSpace: 'pre-wrap', margin: '6px 0', maxWidth: 420 }}>{JSON.stringify(entry.details, null, 2)}</pre>}
      {entry.request_id && <div className="muted">Request <code>{entry.request_id}</code></div>}
    </details>
  );
}
