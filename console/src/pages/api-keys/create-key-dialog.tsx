import type { components } from '@sdk/generated/openapi.js';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../../api/client.js';
import { SecretOnce } from '../../components/copy-button.js';
import { Dialog } from '../../components/dialog.js';
import { ErrorBanner, Field } from '../../components/ui.js';
import { PLAIN_LABEL } from '../../components/plain-label.js';

type Scope = components['schemas']['ApiKeyCreate']['scopes'][number];

/** The scopes ApiKeyCreate allows, with what each lets a machine client do. */
const SCOPES: { scope: Scope; meaning: string }[] = [
  { scope: 'interactions:write', meaning: 'record interactions (a proxy, an extension fleet)' },
  { scope: 'interactions:read', meaning: 'read and search interactions' },
  { scope: 'scim', meaning: 'provision users from the identity provider (SCIM)' },
];

/** Creates an API key, then shows the key once: closing the dialog forgets it. */
export function CreateKeyDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const queryClient = useQueryClient();
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<Scope[]>(['interactions:write']);
  const creation = useMutation({
    mutationFn: () => api.POST('/api/v1/api-keys', { body: { name, scopes } }),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: ['api-keys'] }),
  });
  const created = creation.data;

  function close() {
    creation.reset();
    setName('');
    setScopes(['interactions:write']);
    onClose();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    creation.mutate();
  }

  return (
    <Dialog title={created ? 'API key created' : 'Create an API key'} open={open} onClose={close}>
      {created ? (
        <>
          <SecretOnce label={`API key “${created.name}”`} value={created.key} />
          <p className="muted">Clients send it as <code>Authorization: Bearer &lt;key&gt;</code>.</p>
          <div className="actions" style={{ justifyContent: 'flex-end' }}>
            <button type="button" className="button" onClick={close}>Done</button>
          </div>
        </>
      ) : (
        <form onSubmit={submit}>
          {creation.error && <ErrorBanner error={creation.error} />}
          <Field label="Name" hint="Who uses it, e.g. Proxy eu-west-1">
            <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          <fieldset className="field">
            <legend>Scopes</legend>
            {SCOPES.map(({ scope, meaning }) => (
              <label key={scope} className="checkbox" style={PLAIN_LABEL}>
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(e) => setScopes(e.target.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))}
                />
                <code>{scope}</code> <span className="muted">{meaning}</span>
              </label>
            ))}
          </fieldset>
          <div className="actions" style={{ justifyContent: 'flex-end' }}>
            <button type="button" className="button secondary" onClick={close}>Cancel</button>
            <button type="submit" className="button" disabled={creation.isPending}>Create key</button>
          </div>
        </form>
      )}
    </Dialog>
  );
}
