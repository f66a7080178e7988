import type { components } from '@sdk/generated/openapi.js';
import { Link } from 'react-router';
import { Badge, formatDate } from '../../components/ui.js';
import { SeverityBadge } from '../interactions/badges.js';

type Alert = components['schemas']['Alert'];

/** A page of alerts; `onResolve` is given to admins only, and only open alerts offer it. */
export function AlertsTable({ alerts, onResolve }: { alerts: Alert[]; onResolve?: (alert: Alert) => void }) {
  return (
    <table className="data" aria-label="Alerts">
      <thead>
        <tr>
          <th>Raised</th>
          <th>Severity</th>
          <th>Policy</th>
          <th>Status</th>
          <th>Interaction</th>
          {onResolve && <th><span className="muted">Actions</span></th>}
        </tr>
      </thead>
      <tbody>
        {alerts.map((alert) => (
          <tr key={alert.id}>
            <td>{formatDate(alert.created_at)}</td>
            <td><SeverityBadge severity={alert.severity} /></td>
            <td>{alert.policy_name}</td>
            <td>
              {alert.status === 'open'
                ? <Badge tone="warn">open</Badge>
                : <><Badge tone="good">resolved</Badge> <small className="muted">{formatDate(alert.resolved_at)}</small></>}
            </td>
            <td><Link to={`/interactions/${alert.interaction_id}`}>View interaction</Link></td>
            {onResolve && (
              <td>{alert.status === 'open' && <button type="button" className="button secondary" onClick={() => onResolve(alert)}>Resolve</button>}</td>
            )}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
