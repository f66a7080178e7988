import { PageHeader } from '../components/ui.js';

export function InteractionPage() {
  return <PageHeader title="Interaction" />;
}
