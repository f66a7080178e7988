import type { components } from '@sdk/generated/openapi.js';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState, type FormEvent } from 'react';
import { api } from '../api/client.js';
import { meQuery } from '../api/me.js';
import { Badge, ErrorBanner, Field, formatDate, PageHeader, QueryState, SuccessBanner } from '../components/ui.js';
import { PasswordForm } from './profile/password-form.js';

type Me = components['schemas']['User'];

export function ProfilePage() {
  const me = useQuery(meQuery);
  return (
    <>
      <PageHeader title="My profile" />
      <QueryState query={me}>
        {(user) => (
          <>
            <section className="card" aria-label="Account" style={{ maxWidth: 640 }}>
              <dl className="details">
                <dt>Email</dt>
                <dd>{user.email}</dd>
                <dt>Role</dt>
                <dd><Badge tone="info">{user.role}</Badge></dd>
                <dt>Member since</dt>
                <dd>{formatDate(user.created_at)}</dd>
                <dt>Last sign-in</dt>
                <dd>{formatDate(user.last_login)}</dd>
              </dl>
            </section>
            <DisplayNameForm user={user} />
            <PasswordForm />
          </>
        )}
      </QueryState>
    </>
  );
}

function DisplayNameForm({ user }: { user: Me }) {
  const queryClient = useQueryClient();
  const [displayName, setDisplayName] = useState(user.display_name ?? '');
  const save = useMutation({
    // An empty name clears it (null), as the API documents.
    mutationFn: () => api.PUT('/api/v1/users/me', { body: { display_name: displayName.trim() === '' ? null : displayName.trim() } }),
    onSuccess: (updated) => {
      // The layout copies it into the session.
      queryClient.setQueryData(meQuery.queryKey, updated);
    },
  });

  function submit(event: FormEvent) {
    event.preventDefault();
    save.mutate();
  }

  return (
    <form className="card" onSubmit={submit} aria-labelledby="name-title" style={{ maxWidth: 640 }}>
      <h2 id="name-title">How your team sees you</h2>
      {save.error && <ErrorBanner error={save.error} />}
      {save.isSuccess && <SuccessBanner>Display name saved.</SuccessBanner>}
      <Field label="Display name" hint="Shown to your team instead of your email; leave empty to use the email">
        <input value={displayName} maxLength={200} autoComplete="name" onChange={(e) => setDisplayName(e.target.value)} />
      </Field>
      <button type="submit" className="button" disabled={save.isPending}>{save.isPending ? 'Saving…' : 'Save'}</button>
    </form>
  );
}
