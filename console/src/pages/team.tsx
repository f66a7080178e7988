import { useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import { api } from '../api/client.js';
import { useIsAdmin, useSession } from '../api/use-session.js';
import { Pager } from '../components/pager.js';
import { Empty, ErrorBanner, Field, PageHeader, QueryState, SuccessBanner } from '../components/ui.js';
import { InviteDialog } from './team/invite-dialog.js';
import { ROLES, STATUSES, type Role, type Status } from './team/team-types.js';
import { UserTable } from './team/user-table.js';

const LIMIT = 25;
const SORTS = [
  { value: 'created_at', label: 'Oldest first' },
  { value: '-created_at', label: 'Newest first' },
  { value: 'email', label: 'Email A–Z' },
  { value: '-email', label: 'Email Z–A' },
] as const;
type Sort = (typeof SORTS)[number]['value'];

/** The organization's users, filtered by role and status in the URL; admins invite and manage them. */
export function TeamPage() {
  const isAdmin = useIsAdmin();
  const [inviting, setInviting] = useState(false);
  const [notice, setNotice] = useState<{ message?: string; error?: unknown } | null>(null);

  if (!isAdmin) {
    // The API shows the users list to admins only (a viewer gets 403), so a viewer is not sent to ask.
    return (
      <>
        <PageHeader title="Team" />
        <Empty>
          The team list and its management are for admins. Ask an admin of your organization to invite someone or to
          change a role. Your own name and password are in <Link to="/profile">My profile</Link>.
        </Empty>
      </>
    );
  }

  return (
    <>
      <PageHeader title="Team" actions={<button type="button" className="button" onClick={() => setInviting(true)}>Invite user</button>}>
        Invited users get an email with a link to choose their password; it is valid for 7 days.
      </PageHeader>
      {notice?.message && <SuccessBanner>{notice.message}</SuccessBanner>}
      {notice?.error !== undefined && <ErrorBanner error={notice.error} />}
      <UserList notify={setNotice} />
      <InviteDialog open={inviting} onClose={() => setInviting(false)} notify={setNotice} />
    </>
  );
}

function UserList({ notify }: { notify: (notice: { message?: string; error?: unknown }) => void }) {
  const session = useSession();
  const [params, setParams] = useSearchParams();
  const page = Math.max(1, Number(params.get('page')) || 1);
  const role = params.get('role') as Role | null;
  const status = params.get('status') as Status | null;
  const sort = (params.get('sort') as Sort | null) ?? 'created_at';
  const query = { page, limit: LIMIT, sort, ...(role ? { role } : {}), ...(status ? { status } : {}) };
  const users = useQuery({
    queryKey: ['users', query],
    queryFn: () => api.GET('/api/v1/users', { params: { query } }),
  });

  function change(key: string, value: string) {
    const next = new URLSearchParams(params);
    if (value) next.set(key, value);
    else next.delete(key);
    if (key !== 'page') next.delete('page');
    setParams(next);
  }

  return (
    <>
      <div className="filters" role="search" aria-label="Filter users">
        <Field label="Role">
          <select value={role ?? ''} onChange={(e) => change('role', e.target.value)}>
            <option value="">Any role</option>
            {ROLES.map((r) => <option key={r.value} value={r.value}>{r.label}</option>)}
          </select>
        </Field>
        <Field label="Status">
          <select value={status ?? ''} onChange={(e) => change('status', e.target.value)}>
            <option value="">Any status</option>
            {STATUSES.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
          </select>
        </Field>
        <Field label="Sort">
          <select value={sort} onChange={(e) => change('sort', e.target.value === 'created_at' ? '' : e.target.value)}>
            {SORTS.map((s) => <option key={s.value} value={s.value}>{s.label}</option>)}
          </select>
        </Field>
      </div>
      <QueryState query={users}>
        {(data) => data.users.length === 0 ? (
          <Empty>No user matches these filters.</Empty>
        ) : (
          <>
            <UserTable users={data.users} meId={session?.user.id} notify={notify} />
            <Pager page={page} limit={LIMIT} total={data.total} onPage={(p) => change('page', String(p))} />
          </>
        )}
      </QueryState>
    </>
  );
}
