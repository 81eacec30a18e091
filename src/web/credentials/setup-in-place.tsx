import { toast } from '../app/toast.ts';
import { Card } from '../ui/card.tsx';
import { credentialMessages } from '../../shared/credentials/credential-messages.ts';
import { CredentialsForm } from './credentials-form.tsx';
import { setupIntro } from './setup-page.tsx';
import { TrySandboxCard } from '../sandbox/try-sandbox-card.tsx';
import { PageTitle } from '../app/page-title.tsx';

/** The setup screen shown in place of a page that needs saved credentials (require-setup.tsx). */
export function SetupInPlace() {
  return (
    <div className="mx-auto max-w-2xl space-y-6">
      <PageTitle title="Complete Your Setup · Flowsmith" />
      <header className="space-y-1">
        <h1 className="text-2xl font-bold text-slate-900">Complete Your Setup</h1>
        <p className="text-slate-700">{setupIntro}</p>
      </header>
      <Card>
        <CredentialsForm stored={null} submitLabel="Save and Continue" onSaved={() => toast.success(credentialMessages.setupCompleted)} />
      </Card>
      <TrySandboxCard />
    </div>
  );
}
