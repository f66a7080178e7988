import { useQuery } from '@tanstack/react-query';
import { Link, useParams } from 'react-router';
import { api } from '../api/client.js';
import { useIsAdmin } from '../api/use-session.js';
import { CopyButton } from '../components/copy-button.js';
import { Empty, PageHeader, QueryState } from '../components/ui.js';
import { ActionBadge, RiskBadge } from './interactions/badges.js';
import { ClassificationsTable } from './interactions/classifications-table.js';
import { DeleteInteraction } from './interactions/delete-interaction.js';
import { directionLabel, formatTimestamp, sourceLabel, type Interaction } from './interactions/filters.js';
import { InteractionAlerts } from './interactions/interaction-alerts.js';

export function InteractionPage() {
  const { interactionId = '' } = useParams();
  const isAdmin = useIsAdmin();
  const interaction = useQuery({
    queryKey: ['interaction', interactionId],
    queryFn: () => api.GET('/api/v1/interactions/{interaction_id}', { params: { path: { interaction_id: interactionId } } }),
  });

  return (
    <>
      <p><Link to="/interactions">← Interactions</Link></p>
      <PageHeader title="Interaction" actions={isAdmin && interaction.data ? <DeleteInteraction interactionId={interactionId} /> : undefined}>
        <span className="mono">{interactionId}</span>
      </PageHeader>
      <QueryState query={interaction}>
        {(data) => (
          <>
            <section className="card" aria-labelledby="fields-title">
              <h2 id="fields-title">Details</h2>
              <Fields interaction={data} />
            </section>
            <section className="card" aria-labelledby="classifications-title">
              <h2 id="classifications-title">Classifications</h2>
              <ClassificationsTable classifications={data.classifications} />
            </section>
            <section className="card" aria-labelledby="decisions-title">
              <h2 id="decisions-title">Policy decisions</h2>
              <Decisions decisions={data.policy_decisions} />
            </section>
            <section className="card" aria-labelledby="alerts-title">
              <h2 id="alerts-title">Alerts</h2>
              <InteractionAlerts interactionId={data.id} />
            </section>
          </>
        )}
      </QueryState>
    </>
  );
}

function Fields({ interaction: i }: { interaction: Interaction }) {
  const metadata = Object.keys(i.content_metadata).length > 0 ? JSON.stringify(i.content_metadata, null, 2) : null;
  return (
    <dl className="details">
      <dt>Time</dt><dd>{formatTimestamp(i.timestamp)} <small className="muted">{i.timestamp}</small></dd>
      <dt>Platform</dt><dd><Link to={`/interactions?platform_id=${encodeURIComponent(i.platform_id)}`}>{i.platform_id}</Link></dd>
      <dt>Type</dt><dd>{i.interaction_type}</dd>
      <dt>Source</dt><dd>{sourceLabel(i.source)}</dd>
      <dt>Direction</dt><dd>{directionLabel(i.direction)}</dd>
      <dt>User</dt>
      <dd>
        {i.user_id
          ? <Link className="mono" to={`/interactions?user_id=${encodeURIComponent(i.user_id)}`}>{i.user_id}</Link>
          : <span className="muted">none</span>}
      </dd>
      <dt>Risk score</dt><dd><RiskBadge score={i.risk_score} /></dd>
      <dt>Content hash</dt>
      <dd style={{ display: 'flex', gap: 8, alignItems: 'center' }}>
        <code data-testid="content-hash">{i.content_hash}</code>
        <CopyButton value={i.content_hash} label="Copy hash" />
      </dd>
      <dt>Content metadata</dt>
      <dd>{metadata ? <pre className="mono" style={{ margin: 0, whiteSpace: 'pre-wrap' }}>{metadata}</pre> : <span className="muted">none</span>}</dd>
    </dl>
  );
}

function Decisions({ decisions }: { decisions: Interaction['policy_decisions'] }) {
  if (decisions.length === 0) return <Empty>No policy matched this interaction.</Empty>;
  return (
    <table className="data" aria-label="Policy decisions">
      <thead><tr><th>Policy</th><th>Action</th><th className="num">Conditions matched</th></tr></thead>
      <tbody>
        {decisions.map((d) => (
          <tr key={d.policy_id}>
            <td>{d.policy_name}</td>
            <td><ActionBadge action={d.action} /></td>
            <td className="num">{d.matched_conditions}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
