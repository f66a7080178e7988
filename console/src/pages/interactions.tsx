import { PageHeader } from '../components/ui.js';

export function InteractionsPage() {
  return <PageHeader title="Interactions" />;
}
