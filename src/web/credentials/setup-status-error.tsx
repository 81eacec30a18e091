import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';

/** Whether setup is complete could not be read: say so, and offer to ask again. */
export function SetupStatusError({ onRetry }: { onRetry: () => void }) {
  return (
    <div className="mx-auto max-w-md space-y-3 p-8">
      <Alert tone="error" title="Your setup could not be checked">
        Please try again in a moment.
      </Alert>
      <Button variant="secondary" onClick={onRetry}>
        Retry
      </Button>
    </div>
  );
}
