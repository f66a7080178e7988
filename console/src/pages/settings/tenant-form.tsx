import type { components } from '@sdk/generated/openapi.js';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { ErrorBanner, Field, SuccessBanner } from '../../components/ui.js';
import { PLAIN_LABEL } from '../../components/plain-label.js';
import { RetentionField } from './retention-field.js';
import { SignalValuesField } from './signal-values-field.js';

type Tenant = components['schemas']['Tenant'];

/** The admin's form of the tenant's settings (PUT /tenant); the API's validation sentences are shown as they are. */
export function TenantForm({ tenant }: { tenant: Tenant }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState(tenant.name);
  const [retention, setRetention] = useState(tenant.retention_days === null ? '' : String(tenant.retention_days));
  const [retentionForever, setRetentionForever] = useState(tenant.retention_days === null);
  const [auditRetention, setAuditRetention] = useState(tenant.audit_retention_days === null ? '' : String(tenant.audit_retention_days));
  const [auditForever, setAuditForever] = useState(tenant.audit_retention_days === null);
  const [validateSignals, setValidateSignals] = useState(tenant.validate_signals);
  const [signalValues, setSignalValues] = useState(tenant.signal_values);
  const save = useMutation({
    mutationFn: () => api.PUT('/api/v1/tenant', {
      body: {
        name,
        retention_days: retentionForever ? null : Number(retention),
        audit_retention_days: auditForever ? null : Number(auditRetention),
        validate_signals: validateSignals,
        signal_values: signalValues,
      },
    }),
    onSuccess: (updated) => queryClient.setQueryData(['tenant'], updated),
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }

  return (
    <form className="card" onSubmit={submit} aria-label="Organization settings" style={{ maxWidth: 640 }}>
      {save.error && <ErrorBanner error={save.error} />}
      {save.isSuccess && <SuccessBanner>Settings saved.</SuccessBanner>}
      <Field label="Organization name">
        <input required value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <RetentionField
        label="Interaction retention"
        hint="Interactions and their alerts older than this are deleted (at least 1 day)."
        days={retention}
        forever={retentionForever}
        onDays={setRetention}
        onForever={setRetentionForever}
      />
      <RetentionField
        label="Audit log retention"
        hint="Audit entries older than this are deleted (at least 365 days)."
        days={auditRetention}
        forever={auditForever}
        onDays={setAuditRetention}
        onForever={setAuditForever}
      />
      <div className="field">
        <label className="checkbox" style={PLAIN_LABEL}>
          <input type="checkbox" checked={validateSignals} onChange={(e) => setValidateSignals(e.target.checked)} />
          Validate the risk signals received (classifications carry validated: true or false)
        </label>
      </div>
      <SignalValuesField value={signalValues} onChange={setSignalValues} />
      <button type="submit" className="button" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save settings'}</button>
    </form>
  );
}
