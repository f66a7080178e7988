import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { BrowserRouter, Navigate, Route, Routes, useLocation } from 'react-router';
import { isApiError } from './api/client.js';
import { useSession } from './api/use-session.js';
import { Layout } from './components/layout.js';
import { AcceptInvitePage } from './pages/accept-invite.js';
import { AiAppsPage } from './pages/ai-apps.js';
import { AlertsPage } from './pages/alerts.js';
import { ApiKeysPage } from './pages/api-keys.js';
import { AuditLogPage } from './pages/audit-log.js';
import { InteractionPage } from './pages/interaction.js';
import { InteractionsPage } from './pages/interactions.js';
import { NotFoundPage } from './pages/not-found.js';
import { OverviewPage } from './pages/overview.js';
import { PeopleAtRiskPage } from './pages/people-at-risk.js';
import { PoliciesPage } from './pages/policies.js';
import { ProfilePage } from './pages/profile.js';
import { SettingsPage } from './pages/settings.js';
import { SignInPage } from './pages/sign-in.js';
import { TeamPage } from './pages/team.js';
import { WebhookPage } from './pages/webhook.js';
import { WebhooksPage } from './pages/webhooks.js';

const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 15_000,
      refetchOnWindowFocus: false,
      // The SDK already retried 429/503; a 4xx will not change by asking again.
      retry: (failures, error) => failures < 1 && !isApiError(error),
    },
  },
});

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <Routes>
          <Route path="/sign-in" element={<SignInPage />} />
          <Route path="/accept-invite" element={<AcceptInvitePage />} />
          <Route element={<SignedIn />}>
            <Route index element={<OverviewPage />} />
            <Route path="interactions" element={<InteractionsPage />} />
            <Route path="interactions/:interactionId" element={<InteractionPage />} />
            <Route path="ai-apps" element={<AiAppsPage />} />
            <Route path="people-at-risk" element={<PeopleAtRiskPage />} />
            <Route path="alerts" element={<AlertsPage />} />
            <Route path="policies" element={<PoliciesPage />} />
            <Route path="team" element={<TeamPage />} />
            <Route path="webhooks" element={<WebhooksPage />} />
            <Route path="webhooks/:webhookId" element={<WebhookPage />} />
            <Route path="api-keys" element={<ApiKeysPage />} />
            <Route path="audit-log" element={<AuditLogPage />} />
            <Route path="settings" element={<SettingsPage />} />
            <Route path="profile" element={<ProfilePage />} />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}

/** Pages behind sign-in: without a session, go to sign-in and come back here afterwards. */
function SignedIn() {
  const session = useSession();
  const location = useLocation();
  if (!session) {
    queryClient.clear();
    const next = `${location.pathname}${location.search}`;
    return <Navigate to={next === '/' ? '/sign-in' : `/sign-in?next=${encodeURIComponent(next)}`} replace />;
  }
  return <Layout />;
}
