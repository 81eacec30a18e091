import type { ReactNode } from 'react';
import { Workflow } from 'lucide-react';

/** SPEC.md: auth screens are a centred card of medium maximum width under a generic brand title and icon. */
export function AuthShell({ title, children }: { title: string; children: ReactNode }) {
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-6 flex flex-col items-center gap-2">
          <span className="flex h-12 w-12 items-center justify-center rounded-full bg-indigo-600 text-white">
            <Workflow aria-hidden="true" />
          </span>
          <p className="text-lg font-semibold text-slate-700">Flowsmith</p>
        </div>
        <div className="rounded-lg border border-slate-200 bg-white p-8 shadow-sm">
          <h1 className="mb-6 text-center text-2xl font-bold">{title}</h1>
          {children}
        </div>
      </div>
    </main>
  );
}
