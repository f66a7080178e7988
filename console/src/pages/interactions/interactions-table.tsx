import type { MouseEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { ActionBadge, ClassificationTypes, RiskBadge } from './badges.js';
import { directionLabel, formatTimestamp, sourceLabel, type Interaction } from './filters.js';

/** A page of interactions; a row opens its interaction (its time is the keyboard's link). */
export function InteractionsTable({ rows, userLink }: { rows: Interaction[]; userLink(userId: string): string }) {
  const navigate = useNavigate();
  const open = (id: string) => (event: MouseEvent) => {
    // Links and buttons inside the row keep their own meaning.
    if ((event.target as Element).closest('a, button')) return;
    navigate(`/interactions/${id}`);
  };

  return (
    <table className="data" aria-label="Interactions">
      <thead>
        <tr>
          <th>Time</th>
          <th>User</th>
          <th>Platform</th>
          <th>Source / direction</th>
          <th>Risk</th>
          <th>Classifications</th>
          <th>Policy action</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id} onClick={open(row.id)} style={{ cursor: 'pointer' }}>
            <td><Link to={`/interactions/${row.id}`}>{formatTimestamp(row.timestamp)}</Link></td>
            <td>
              {row.user_id
                ? <Link to={userLink(row.user_id)} title={`Only the interactions of user ${row.user_id}`} className="mono">{row.user_id.slice(0, 8)}…</Link>
                : <span className="muted">—</span>}
            </td>
            <td>{row.platform_id}<br /><small className="muted">{row.interaction_type}</small></td>
            <td>{sourceLabel(row.source)}<br /><small className="muted">{directionLabel(row.direction)}</small></td>
            <td><RiskBadge score={row.risk_score} /></td>
            <td><ClassificationTypes classifications={row.classifications} /></td>
            <td>{row.policy_decisions[0] ? <ActionBadge action={row.policy_decisions[0].action} /> : <span className="muted">—</span>}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
