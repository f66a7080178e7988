import { useQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { api } from '../../api/client.js';
import { Empty, formatDate, QueryState } from '../../components/ui.js';
import { SeverityBadge } from './badges.js';

/** The alerts this interaction raised (one per block or coach policy it matched). */
export function InteractionAlerts({ interactionId }: { interactionId: string }) {
  const query = { interaction_id: interactionId, limit: 100 };
  const alerts = useQuery({ queryKey: ['alerts', query], queryFn: () => api.GET('/api/v1/alerts', { params: { query } }) });
  return (
    <QueryState query={alerts}>
      {(list) => list.alerts.length === 0 ? <Empty>This interaction raised no alert.</Empty> : (
        <>
          <table className="data" aria-label="Alerts of this interaction">
            <thead><tr><th>Raised</th><th>Policy</th><th>Severity</th><th>Status</th></tr></thead>
            <tbody>
              {list.alerts.map((alert) => (
                <tr key={alert.id}>
                  <td>{formatDate(alert.created_at)}</td>
                  <td>{alert.policy_name}</td>
                  <td><SeverityBadge severity={alert.severity} /></td>
                  <td>{alert.status === 'open' ? 'Open' : `Resolved ${formatDate(alert.resolved_at)}`}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <p><Link to={`/alerts?${new URLSearchParams({ interaction_id: interactionId }).toString()}`}>Open these alerts in the alerts page</Link></p>
        </>
      )}
    </QueryState>
  );
}
