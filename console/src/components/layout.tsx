import { useQuery } from '@tanstack/react-query';
import { useEffect } from 'react';
import { NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { api } from '../api/client.js';
import { meQuery } from '../api/me.js';
import { getSession, setSession } from '../api/session.js';
import { useSession } from '../api/use-session.js';

const NAV: { to: string; label: string; adminOnly?: boolean }[] = [
  { to: '/', label: 'Overview' },
  { to: '/interactions', label: 'Interactions' },
  { to: '/ai-apps', label: 'AI apps' },
  { to: '/people-at-risk', label: 'People at risk' },
  { to: '/alerts', label: 'Alerts' },
  { to: '/policies', label: 'Policies' },
  { to: '/team', label: 'Team' },
  { to: '/webhooks', label: 'Webhooks', adminOnly: true },
  { to: '/api-keys', label: 'API keys', adminOnly: true },
  { to: '/audit-log', label: 'Audit log', adminOnly: true },
  { to: '/settings', label: 'Settings' },
];

export function Layout() {
  const session = useSession();
  const navigate = useNavigate();
  const isAdmin = session?.user.role === 'admin';
  useFreshUser();

  async function signOut() {
    try {
      await api.POST('/api/v1/auth/logout');
    } catch {
      // The token is dropped here whatever the service answered; it expires on its own anyway.
    }
    setSession(null);
    navigate('/sign-in', { replace: true });
  }

  return (
    <div className="shell">
      <a className="skip-link" href="#main">Skip to content</a>
      <nav className="sidebar" aria-label="Main">
        <div className="brand">Usage Governance</div>
        <ul>
          {NAV.filter((item) => isAdmin || !item.adminOnly).map((item) => (
            <li key={item.to}>
              <NavLink to={item.to} end={item.to === '/'}>{item.label}</NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <div className="content">
        <header className="topbar">
          <span className="muted">{session?.user.email}</span>
          <span className="badge">{session?.user.role}</span>
          <NavLink to="/profile">My profile</NavLink>
          <button type="button" className="button secondary" onClick={signOut}>Sign out</button>
        </header>
        <main id="main" tabIndex={-1}>
          <Outlet />
        </main>
      </div>
    </div>
  );
}

/**
 * Reads the signed-in user again at each page change: roles are looked up by the service on
 * every request, so a role changed by another admin shows at the next navigation, and a session
 * that ended (401) sends the user to sign-in before the page acts on stale rights.
 */
function useFreshUser() {
  const { pathname } = useLocation();
  // A 401 ends the session (api/client.ts); other failures show on the page's own calls.
  const { data: user, refetch } = useQuery(meQuery);
  useEffect(() => {
    // Joins the read already under way (the first render's) rather than asking twice.
    void refetch({ cancelRefetch: false });
  }, [pathname, refetch]);
  useEffect(() => {
    const session = getSession();
    if (user && session?.user.id === user.id && JSON.stringify(session.user) !== JSON.stringify(user)) setSession({ ...session, user });
  }, [user]);
}
