import type { components } from '@sdk/generated/openapi.js';
import { useQuery } from '@tanstack/react-query';
import { api } from '../api/client.js';
import { useIsAdmin } from '../api/use-session.js';
import { Badge, formatDate, PageHeader, QueryState } from '../components/ui.js';
import { SIGNAL_VALUES_APPLY, signalValuesLabel } from './settings/signal-values.js';
import { SsoSection } from './settings/sso-section.js';
import { TenantForm } from './settings/tenant-form.js';

type Tenant = components['schemas']['Tenant'];

export function SettingsPage() {
  const isAdmin = useIsAdmin();
  const tenant = useQuery({ queryKey: ['tenant'], queryFn: () => api.GET('/api/v1/tenant') });
  return (
    <>
      <PageHeader title="Settings">
        {isAdmin ? 'Your organization, how long its data is kept, and how its members sign in.' : 'Your organization and how long its data is kept. Only admins change them.'}
      </PageHeader>
      <QueryState query={tenant}>
        {(data) => (
          <>
            {isAdmin ? <TenantForm tenant={data} /> : <TenantValues tenant={data} />}
            <section className="card" aria-label="Organization" style={{ maxWidth: 640 }}>
              <dl className="details">
                <dt>Organization id</dt>
                <dd><code>{data.id}</code></dd>
                <dt>Created</dt>
                <dd>{formatDate(data.created_at)}</dd>
                <dt>Last changed</dt>
                <dd>{formatDate(data.updated_at)}</dd>
              </dl>
            </section>
          </>
        )}
      </QueryState>
      {isAdmin && <SsoSection />}
    </>
  );
}

const days = (value: number | null) => (value === null ? 'Kept forever' : `${value.toLocaleString()} days`);

/** What a viewer sees: the values, with no control. */
function TenantValues({ tenant }: { tenant: Tenant }) {
  return (
    <section className="card" aria-label="Organization settings" style={{ maxWidth: 640 }}>
      <dl className="details">
        <dt>Organization name</dt>
        <dd>{tenant.name}</dd>
        <dt>Interaction retention</dt>
        <dd>{days(tenant.retention_days)}</dd>
        <dt>Audit log retention</dt>
        <dd>{days(tenant.audit_retention_days)}</dd>
        <dt>Validate the risk signals</dt>
        <dd>{tenant.validate_signals ? <Badge tone="good">Yes</Badge> : <Badge>No</Badge>}</dd>
        <dt>Detected values</dt>
        <dd>{signalValuesLabel(tenant.signal_values)}<br /><small className="muted">{SIGNAL_VALUES_APPLY}</small></dd>
      </dl>
    </section>
  );
}
