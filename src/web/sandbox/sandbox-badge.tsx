import { FlaskConical } from 'lucide-react';
import { sandboxMessages } from '../../shared/sandbox/sandbox-messages.ts';

/** Marks whatever belongs to the sandbox, wherever it shows, so it is never taken for real. */
export function SandboxBadge({ className = '' }: { className?: string }) {
  return (
    <span className={`inline-flex items-center gap-1 rounded-full bg-amber-100 px-2.5 py-0.5 text-xs font-semibold text-amber-900 ${className}`}>
      <FlaskConical aria-hidden="true" className="h-3.5 w-3.5" />
      {sandboxMessages.badge}
    </span>
  );
}
