import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { api } from '../../api/client.js';
import { ErrorBanner, PageHeader, QueryState } from '../../components/ui.js';
import { DryRunPreview } from './dry-run-preview.js';
import { PolicyForm } from './policy-form.js';
import { bodyFromForm, EMPTY_FORM, formFromPolicy, type Policy, type PolicyFormState } from './policy-fields.js';

interface EditorProps {
  /** The policy to edit; none: a new policy. */
  policyId?: string;
  onDone: (message: string) => void;
  onCancel: () => void;
}

export function PolicyEditor({ policyId, onDone, onCancel }: EditorProps) {
  const policy = useQuery({
    queryKey: ['policy', policyId],
    queryFn: () => api.GET('/api/v1/policies/{policy_id}', { params: { path: { policy_id: policyId! } } }),
    enabled: policyId !== undefined,
    staleTime: 0,
  });
  if (policyId === undefined) return <EditorForm onDone={onDone} onCancel={onCancel} />;
  return (
    <>
      <PageHeader title="Edit policy" actions={<button type="button" className="button secondary" onClick={onCancel}>Back to policies</button>} />
      <QueryState query={policy}>
        {(loaded) => <EditorForm key={loaded.id} policy={loaded} onDone={onDone} onCancel={onCancel} />}
      </QueryState>
    </>
  );
}

/** The form and its preview side by side: the preview judges the form as it is, saved or not. */
function EditorForm({ policy, onDone, onCancel }: { policy?: Policy; onDone: (message: string) => void; onCancel: () => void }) {
  const queryClient = useQueryClient();
  const [form, setForm] = useState<PolicyFormState>(() => (policy ? formFromPolicy(policy) : EMPTY_FORM));
  const body = bodyFromForm(form);
  const save = useMutation({
    mutationFn: () => (policy
      ? api.PUT('/api/v1/policies/{policy_id}', {
        params: { path: { policy_id: policy.id } }, body: { ...body, message: body.message ?? null },
      })
      : api.POST('/api/v1/policies', { body })),
    onSuccess: async (saved) => {
      await queryClient.invalidateQueries({ queryKey: ['policies'] });
      queryClient.removeQueries({ queryKey: ['policy', saved.id] });
      onDone(policy ? `Policy “${saved.name}” saved.` : `Policy “${saved.name}” created.`);
    },
  });

  return (
    <>
      {!policy && <PageHeader title="New policy">A policy judges every interaction recorded after it is saved.</PageHeader>}
      <div style={{ display: 'grid', gridTemplateColumns: 'minmax(0, 1.1fr) minmax(0, 1fr)', gap: 16, alignItems: 'start' }}>
        <section className="card" aria-label="Policy form">
          {save.error && <ErrorBanner error={save.error} />}
          <PolicyForm form={form} onChange={setForm} onSubmit={() => save.mutate()} onCancel={onCancel}
            busy={save.isPending} submitLabel={policy ? 'Save policy' : 'Create policy'} />
        </section>
        <DryRunPreview body={body} />
      </div>
    </>
  );
}
