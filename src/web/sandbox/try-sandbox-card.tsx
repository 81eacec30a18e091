import { FlaskConical } from 'lucide-react';
import { Button } from '../ui/button.tsx';
import { sandboxMessages } from '../../shared/sandbox/sandbox-messages.ts';
import { useStartSandbox } from './use-sandbox.ts';

/** The way in for an owner without accounts: the setup screen and the dashboard offer it. */
export function TrySandboxCard({ onStarted }: { onStarted?: () => void }) {
  const start = useStartSandbox();
  return (
    <section aria-labelledby="try-sandbox-heading" className="space-y-3 rounded-lg border border-amber-300 bg-amber-50 p-4">
      <h2 id="try-sandbox-heading" className="flex items-center gap-2 text-lg font-semibold text-slate-900">
        <FlaskConical aria-hidden="true" className="h-5 w-5 text-amber-800" />
        {sandboxMessages.tryTitle}
      </h2>
      <p className="text-sm text-slate-800">{sandboxMessages.tryDescription}</p>
      <Button variant="secondary" busy={start.isPending} onClick={() => start.mutate(undefined, { onSuccess: () => onStarted?.() })}>
        {sandboxMessages.tryButton}
      </Button>
    </section>
  );
}
