import { ChevronRight } from 'lucide-react';

/**
 * "Use your own app's keys instead" / "Use a private key instead": the way to today's key
 * fields, one step away from the one-click connection. A disclosure button: it says
 * whether the fields it controls are shown, and names them only while they are.
 */
export function KeysDisclosure({ label, expanded, controls, onToggle }: { label: string; expanded: boolean; controls: string; onToggle: () => void }) {
  return (
    <button
      type="button"
      aria-expanded={expanded}
      aria-controls={expanded ? controls : undefined}
      onClick={onToggle}
      className="inline-flex items-center gap-1 rounded-sm text-sm font-medium text-indigo-700 underline-offset-2 hover:underline focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-indigo-600"
    >
      <ChevronRight aria-hidden="true" className={`h-4 w-4 shrink-0 transition-transform motion-reduce:transition-none ${expanded ? 'rotate-90' : ''}`} />
      {label}
    </button>
  );
}
