import { PageHeader } from '../components/ui.js';

export function AlertsPage() {
  return <PageHeader title="Alerts" />;
}
