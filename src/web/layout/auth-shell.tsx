import type { ReactNode } from 'react';
import { Workflow } from 'lucide-react';
import { PageTitle } from '../app/page-title.tsx';

/**
 * docs/product/specification.md §2: auth screens are a centred card of medium maximum
 * width under a generic brand title and icon.
 */
export function AuthShell({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-center justify-center bg-gradient-to-b from-indigo-50 to-slate-50 px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-6 flex flex-col items-center gap-2">
          <span className="flex h-12 w-12 items-center justify-center rounded-full bg-indigo-600 text-white shadow-md">
            <Workflow aria-hidden="true" />
          </span>
          <p className="text-lg font-semibold text-slate-800">Flowsmith</p>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-8 shadow-sm">
          {/* Each screen gets its own tab title. */}
          <PageTitle title={`${title} · Flowsmith`} />
          <div className="mb-6 space-y-1 text-center">
            <h1 className="text-2xl font-bold text-slate-900">{title}</h1>
            {description ? <p className="text-sm text-slate-600">{description}</p> : null}
          </div>
          {children}
        </div>
      </div>
    </main>
  );
}
