import type { ReactNode } from 'react';
import { AlertTriangle, CheckCircle2, Info, XCircle, type LucideIcon } from 'lucide-react';

const tones: Record<'error' | 'warning' | 'info' | 'success', { Icon: LucideIcon; classes: string }> = {
  error: { Icon: XCircle, classes: 'border-red-200 bg-red-50 text-red-800' },
  warning: { Icon: AlertTriangle, classes: 'border-amber-300 bg-amber-50 text-amber-900' },
  info: { Icon: Info, classes: 'border-blue-200 bg-blue-50 text-blue-900' },
  success: { Icon: CheckCircle2, classes: 'border-green-200 bg-green-50 text-green-900' },
};

/**
 * A message that stays on the page, unlike a toast. Errors and warnings use role="alert"
 * so screen readers announce them when they appear; the rest are polite status updates.
 */
export function Alert({
  tone,
  title,
  children,
  className = '',
}: {
  tone: keyof typeof tones;
  title?: string;
  children?: ReactNode;
  className?: string;
}) {
  const { Icon, classes } = tones[tone];
  const urgent = tone === 'error' || tone === 'warning';
  return (
    <div role={urgent ? 'alert' : 'status'} className={`flex gap-3 rounded-md border p-3 text-sm ${classes} ${className}`}>
      <Icon aria-hidden="true" className="mt-0.5 h-4 w-4 shrink-0" />
      <div className="space-y-1">
        {title ? <p className="font-semibold">{title}</p> : null}
        {children ? <div>{children}</div> : null}
      </div>
    </div>
  );
}
