import { PageHeader } from '../components/ui.js';

export function WebhookPage() {
  return <PageHeader title="Webhook" />;
}
