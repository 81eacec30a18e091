import { Button } from '../ui/button.tsx';
import { TextLink } from '../ui/text-link.tsx';
import { sandboxMessages } from '../../shared/sandbox/sandbox-messages.ts';
import { sandboxProfilesPath } from '../../shared/sandbox/sandbox-events.ts';
import { SandboxBadge } from './sandbox-badge.tsx';
import { useLeaveSandbox, useSandboxStatus } from './use-sandbox.ts';

/** Above a flow page while the sandbox is on: what this flow's events go to now, and the way to the real services. */
export function SandboxFlowBanner() {
  const status = useSandboxStatus();
  const leave = useLeaveSandbox();
  return (
    <div role="note" className="mb-6 flex flex-wrap items-center gap-3 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950">
      <SandboxBadge />
      <span>{sandboxMessages.flowBanner}</span>
      <TextLink to={sandboxProfilesPath()}>{sandboxMessages.viewProfiles}</TextLink>
      {status.data?.canUseRealServices ? (
        <Button variant="secondary" className="ml-auto" busy={leave.isPending} onClick={() => leave.mutate()}>
          {sandboxMessages.useRealServices}
        </Button>
      ) : null}
    </div>
  );
}
