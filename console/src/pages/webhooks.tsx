import { PageHeader } from '../components/ui.js';

export function WebhooksPage() {
  return <PageHeader title="Webhooks" />;
}
