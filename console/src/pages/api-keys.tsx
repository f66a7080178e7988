import { PageHeader } from '../components/ui.js';

export function ApiKeysPage() {
  return <PageHeader title="API keys" />;
}
