import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { ErrorBanner, Field, SuccessBanner } from '../../components/ui.js';
import { PLAIN_LABEL } from '../../components/plain-label.js';
import { ConnectionTestResult, useConnectionTest } from './sso-connection-test.js';
import { bodyOf, DEFAULT_ROLE_CHOICES, draftOf, type SsoDraft, type SsoSettings } from './sso-values.js';

export const SSO_QUERY_KEY = ['tenant-sso'];

const LIST_HINT = 'One per line, or separated by commas.';

/** The admin's form of the provider setting (PUT /tenant/sso, which replaces it whole); the API judges the values. */
export function SsoForm({ settings, onSaved }: { settings: SsoSettings | null; onSaved: () => void }) {
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState(() => draftOf(settings));
  const set = <K extends keyof SsoDraft>(key: K) => (value: SsoDraft[K]) => setDraft((current) => ({ ...current, [key]: value }));
  const save = useMutation({
    mutationFn: () => api.PUT('/api/v1/tenant/sso', { body: bodyOf(draft) }),
    onSuccess: (saved) => {
      queryClient.setQueryData(SSO_QUERY_KEY, saved);
      // What is stored now (domains in lower case, one per line), the secret field empty again.
      setDraft(draftOf(saved));
      onSaved();
    },
  });
  const test = useConnectionTest();
  const enforceHint = useId();

  function submit(event: FormEvent) {
    event.preventDefault();
    test.reset();
    save.mutate();
  }

  return (
    <form onSubmit={submit} aria-label="Single sign-on setting">
      {save.error && <ErrorBanner error={save.error} />}
      {save.isSuccess && <SuccessBanner>Single sign-on saved.</SuccessBanner>}
      <Field label="Issuer URL" hint="Your provider's issuer (HTTPS), such as https://login.example.com/realms/acme; its discovery document is read from it.">
        <input type="url" required value={draft.issuer} onChange={(e) => set('issuer')(e.target.value)} />
      </Field>
      <Field label="Client ID">
        <input required autoComplete="off" value={draft.clientId} onChange={(e) => set('clientId')(e.target.value)} />
      </Field>
      <Field label="Client secret" hint={settings?.client_secret_set ? 'Never shown again once saved; type a new one to replace it.' : 'From the client registered at your provider; never shown again once saved.'}>
        <input
          type="password"
          autoComplete="new-password"
          required={!settings?.client_secret_set}
          placeholder={settings?.client_secret_set ? 'stored — leave empty to keep' : undefined}
          value={draft.clientSecret}
          onChange={(e) => set('clientSecret')(e.target.value)}
        />
      </Field>
      <Field label="Allowed email domains" hint={`${LIST_HINT} Only people whose email the provider has verified, in one of these domains, may sign in.`}>
        <textarea rows={2} required value={draft.allowedDomains} onChange={(e) => set('allowedDomains')(e.target.value)} />
      </Field>
      <Field label="Role claim" hint="The ID token claim that carries the groups or roles; a dotted path reaches inside objects (realm_access.roles).">
        <input required value={draft.roleClaim} onChange={(e) => set('roleClaim')(e.target.value)} />
      </Field>
      <Field label="Admin values" hint={`${LIST_HINT} Values of the role claim that make a user an admin; the role follows the claim at each sign-in.`}>
        <textarea rows={2} value={draft.adminValues} onChange={(e) => set('adminValues')(e.target.value)} />
      </Field>
      <Field label="Default role" hint="The role of everyone else. “Nobody new” lets in only people who are already members, who keep their role.">
        <select value={draft.defaultRole} onChange={(e) => set('defaultRole')(e.target.value)}>
          {DEFAULT_ROLE_CHOICES.map(([key, , label]) => <option key={key} value={key}>{label}</option>)}
        </select>
      </Field>
      <div className="field">
        <label className="checkbox" style={PLAIN_LABEL}>
          <input type="checkbox" checked={draft.enforce} onChange={(e) => set('enforce')(e.target.checked)} aria-describedby={enforceHint} />
          Require single sign-on
        </label>
        <small id={enforceHint} className="muted">
          Password sign-in is refused to everyone but admins, who keep it as a break-glass way in should the provider fail.
        </small>
      </div>
      <ConnectionTestResult test={test} />
      <div className="actions">
        <button type="submit" className="button" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save'}</button>
        <button type="button" className="button secondary" disabled={test.isPending} onClick={() => test.mutate(draft.issuer.trim())}>
          {test.isPending ? 'Testing…' : 'Test connection'}
        </button>
      </div>
    </form>
  );
}
