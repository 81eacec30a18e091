import { Check, Minus, X } from 'lucide-react';
import { textCheckNames, textCheckOutcomeMessages, type TextCheckName } from '../../shared/text-checks/text-check-messages.ts';
import type { TextChecksRecord, TextCheckVerdict } from '../../shared/text-checks/text-check-schemas.ts';

/**
 * What the checks before delivery made of one assistant's text: each check's verdict, the
 * texts refused with why, and what went out. The event log and Preview both show it.
 */
export function TextCheckResults({ checks }: { checks: TextChecksRecord | null }) {
  if (!checks) return <p className="text-xs text-slate-600">{textCheckOutcomeMessages.notChecked}</p>;
  return (
    <div className="space-y-2" data-testid="text-checks">
      {checks.delivered ? <p className="text-sm text-slate-800">{textCheckOutcomeMessages.delivered[checks.delivered]}</p> : null}
      <ul className="flex flex-wrap gap-1.5" aria-label="Checks">
        {(Object.keys(textCheckNames) as TextCheckName[]).map((check) => {
          const verdict = checks.verdicts[check];
          return verdict ? <VerdictChip key={check} name={textCheckNames[check]} verdict={verdict} /> : null;
        })}
      </ul>
      {checks.rejected.map((refused, index) => (
        <div key={index} className="space-y-1 rounded border border-red-200 bg-red-50 p-2">
          <p className="text-xs font-semibold text-red-800">{index === 0 ? 'Refused text' : 'Refused again'}</p>
          <p className="whitespace-pre-wrap text-sm text-slate-900">{refused.text}</p>
          <ul className="list-disc pl-5 text-sm text-red-800">
            {refused.failures.map((failure, failureIndex) => (
              <li key={failureIndex}>
                <span className="font-medium">{textCheckNames[failure.check]}:</span> {failure.reason}
              </li>
            ))}
          </ul>
        </div>
      ))}
    </div>
  );
}

function VerdictChip({ name, verdict }: { name: string; verdict: TextCheckVerdict }) {
  const look = {
    passed: { icon: <Check className="h-3 w-3" aria-hidden />, className: 'border-green-300 bg-green-50 text-green-900', said: 'passed' },
    failed: { icon: <X className="h-3 w-3" aria-hidden />, className: 'border-red-300 bg-red-50 text-red-900', said: 'failed' },
    not_run: { icon: <Minus className="h-3 w-3" aria-hidden />, className: 'border-slate-300 bg-slate-50 text-slate-700', said: textCheckOutcomeMessages.notRun },
  }[verdict];
  return (
    <li className={`inline-flex items-center gap-1 rounded-full border px-2 py-0.5 text-xs ${look.className}`}>
      {look.icon}
      <span>
        {name}: {look.said}
      </span>
    </li>
  );
}
