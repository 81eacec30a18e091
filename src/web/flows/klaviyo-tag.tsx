import { useEffect, useRef, useState } from 'react';
import { Copy } from 'lucide-react';
import { Button } from '../ui/button.tsx';
import { klaviyoLookupTag, klaviyoPropertyWarnings, klaviyoTagMessages as m } from '../../shared/flows/klaviyo-property-tags.ts';

/** How long the button says "Copied" before it offers to copy again. */
const COPIED_MS = 2_000;

/**
 * The Klaviyo template tag that reads an assistant's property, ready to copy into a
 * Klaviyo email, with a warning when the name is awkward to use there. A property that
 * holds a list (the recommendations) passes its own `tag`, a loop, and the `label` for it.
 */
export function KlaviyoTag({ property, tag: givenTag, label = m.tagLabel }: { property: string; tag?: string | undefined; label?: string | undefined }) {
  const [copy, setCopy] = useState<'idle' | 'copied' | 'failed'>('idle');
  const reset = useRef<number | null>(null);
  useEffect(() => () => {
    if (reset.current !== null) window.clearTimeout(reset.current);
  }, []);

  const name = property.trim();
  if (!name) return null;
  const tag = givenTag ?? klaviyoLookupTag(name);
  const warnings = klaviyoPropertyWarnings(name);

  const copyTag = async () => {
    if (reset.current !== null) window.clearTimeout(reset.current);
    try {
      await navigator.clipboard.writeText(tag);
      setCopy('copied');
      reset.current = window.setTimeout(() => setCopy('idle'), COPIED_MS);
    } catch {
      setCopy('failed');
    }
  };

  return (
    <div className="space-y-1" data-testid="klaviyo-tag">
      <p className="text-xs font-medium text-slate-700">{label}</p>
      <div className="flex flex-wrap items-center gap-2">
        <code className="break-all rounded bg-slate-100 px-2 py-1 font-mono text-xs text-slate-900" data-testid="klaviyo-tag-text">
          {tag}
        </code>
        <Button variant="secondary" className="px-2 py-1 text-xs" onClick={() => void copyTag()}>
          <Copy aria-hidden="true" className="h-3.5 w-3.5" />
          {copy === 'copied' ? m.copied : m.copy}
        </Button>
        <span role="status" className="sr-only">
          {copy === 'copied' ? m.copied : ''}
        </span>
      </div>
      {copy === 'failed' ? (
        <p role="alert" className="text-xs text-red-700">
          {m.copyFailed}
        </p>
      ) : null}
      {warnings.map((warning) => (
        <p key={warning} className="text-xs text-amber-900" data-testid="klaviyo-property-warning">
          {warning}
        </p>
      ))}
    </div>
  );
}
