import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api, isApiError } from '../../api/client.js';
import { ConfirmDialog } from '../../components/confirm-dialog.js';
import { CopyButton } from '../../components/copy-button.js';
import { Badge, formatDate, QueryState, SuccessBanner } from '../../components/ui.js';
import { SSO_QUERY_KEY, SsoForm } from './sso-form.js';
import type { SsoSettings } from './sso-values.js';

/** The tenant's provider setting, or null when none is set up (the API's 404). */
async function ssoSettings(): Promise<SsoSettings | null> {
  try {
    return await api.GET('/api/v1/tenant/sso');
  } catch (error) {
    if (isApiError(error, 'not_found')) return null;
    throw error;
  }
}

/** Single sign-on with the organization's OpenID Connect provider: admins only (the API shows it to no one else). */
export function SsoSection() {
  const queryClient = useQueryClient();
  const settings = useQuery({ queryKey: SSO_QUERY_KEY, queryFn: ssoSettings });
  const [notice, setNotice] = useState<string | null>(null);
  const [turningOff, setTurningOff] = useState(false);
  // Turning off starts the form afresh, empty.
  const [formGeneration, setFormGeneration] = useState(0);

  return (
    <section className="card" aria-labelledby="sso-title" style={{ maxWidth: 640 }}>
      <h2 id="sso-title">Single sign-on</h2>
      <QueryState query={settings}>
        {(data) => (
          <>
            <SsoStatus settings={data} />
            {notice && <SuccessBanner>{notice}</SuccessBanner>}
            {data && <RedirectUri uri={data.redirect_uri} />}
            <SsoForm key={formGeneration} settings={data} onSaved={() => setNotice(null)} />
            {data && (
              <div className="separated">
                <button type="button" className="button danger" onClick={() => { setNotice(null); setTurningOff(true); }}>
                  Turn off single sign-on
                </button>
              </div>
            )}
          </>
        )}
      </QueryState>
      <ConfirmDialog
        title="Turn off single sign-on"
        confirmLabel="Turn off"
        open={turningOff}
        onClose={() => setTurningOff(false)}
        onConfirm={async () => {
          await api.DELETE('/api/v1/tenant/sso');
          queryClient.setQueryData(SSO_QUERY_KEY, null);
          setFormGeneration((generation) => generation + 1);
          setNotice('Single sign-on turned off.');
        }}
      >
        <p>
          Members sign in with their password again. Those who joined through single sign-on have no password: they
          need a password reset from the Team page.
        </p>
      </ConfirmDialog>
    </section>
  );
}

function SsoStatus({ settings }: { settings: SsoSettings | null }) {
  if (!settings) {
    return <p className="muted">Not set up: members sign in with their password. Set up your OpenID Connect provider below.</p>;
  }
  return (
    <p className="muted">
      {settings.enforce ? <Badge tone="good">Required</Badge> : <Badge tone="info">On</Badge>}{' '}
      Last changed {formatDate(settings.updated_at)}{settings.updated_by ? ` by ${settings.updated_by}` : ''}.
    </p>
  );
}

/** The callback URI the admin registers at the provider, as the service builds it. */
function RedirectUri({ uri }: { uri: string }) {
  return (
    <div className="field">
      <span style={{ fontWeight: 550 }}>Redirect URI</span>
      <div className="secret-row">
        <code data-testid="sso-redirect-uri">{uri}</code>
        <CopyButton value={uri} label="Copy the redirect URI" />
      </div>
      <small className="muted">Register it at your provider as the client's redirect (callback) URI.</small>
    </div>
  );
}
