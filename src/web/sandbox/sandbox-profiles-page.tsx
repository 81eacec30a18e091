import { useSearchParams } from 'react-router';
import { Card } from '../ui/card.tsx';
import { Spinner } from '../ui/spinner.tsx';
import { Alert } from '../ui/alert.tsx';
import { Button } from '../ui/button.tsx';
import { formatEventTime } from '../events/event-status-badge.tsx';
import { sandboxMessages } from '../../shared/sandbox/sandbox-messages.ts';
import type { SandboxProfile } from '../../shared/sandbox/sandbox-schemas.ts';
import { SandboxBadge } from './sandbox-badge.tsx';
import { useSandboxProfiles, useSandboxStatus, useSendSampleActivity } from './use-sandbox.ts';
import { z } from 'zod';
import { recommendedProductSchema } from '../../shared/flows/recommendation-schemas.ts';
import { PageTitle } from '../app/page-title.tsx';

/** The sandbox Klaviyo's profiles with the properties the owner's flows wrote; `?email=` puts one first. */
export function SandboxProfilesPage() {
  const profiles = useSandboxProfiles();
  const status = useSandboxStatus();
  const send = useSendSampleActivity();
  const [params] = useSearchParams();
  const wanted = params.get('email')?.toLowerCase() ?? null;
  const list = profiles.data ?? [];
  const ordered = wanted ? [...list.filter((profile) => profile.email === wanted), ...list.filter((profile) => profile.email !== wanted)] : list;
  return (
    <div className="space-y-6">
      <PageTitle title="Sandbox Klaviyo profiles · Flowsmith" />
      <header className="space-y-2">
        <div className="flex flex-wrap items-center gap-3">
          <h1 className="text-2xl font-bold text-slate-900">{sandboxMessages.profilesTitle}</h1>
          <SandboxBadge />
        </div>
        <p className="text-slate-700">{sandboxMessages.profilesDescription}</p>
        {status.data?.active ? (
          <Button busy={send.isPending} onClick={() => send.mutate({})}>
            {sandboxMessages.sendActivity}
          </Button>
        ) : null}
      </header>
      {profiles.isPending ? <Spinner label="Loading sandbox profiles" /> : null}
      {profiles.isError ? <Alert tone="error">{profiles.error.message}</Alert> : null}
      {profiles.data && ordered.length === 0 ? <p className="text-slate-700">{sandboxMessages.noProfiles}</p> : null}
      <ul className="space-y-4" aria-label="Sandbox profiles">
        {ordered.map((profile) => (
          <li key={profile.id}>
            <ProfileCard profile={profile} highlighted={profile.email === wanted} />
          </li>
        ))}
      </ul>
    </div>
  );
}

function ProfileCard({ profile, highlighted }: { profile: SandboxProfile; highlighted: boolean }) {
  const name = [profile.firstName, profile.lastName].filter(Boolean).join(' ');
  const properties = Object.entries(profile.properties);
  return (
    <Card className={highlighted ? 'ring-2 ring-indigo-600' : ''}>
      <article aria-label={`Profile ${profile.email}`} className="space-y-3">
        <header>
          <h2 className="text-lg font-semibold text-slate-900">{name || profile.email}</h2>
          <p className="text-sm text-slate-700">
            {profile.email} · updated {formatEventTime(profile.updatedAt)}
          </p>
        </header>
        {properties.length === 0 ? (
          <p className="text-sm text-slate-700">{sandboxMessages.noProperties}</p>
        ) : (
          <dl className="space-y-3">
            {properties.map(([property, value]) => (
              <div key={property}>
                <dt className="font-mono text-sm font-semibold text-slate-900">{property}</dt>
                <dd className="mt-1 whitespace-pre-wrap break-words rounded-md bg-slate-50 p-3 text-sm text-slate-800">
                  <PropertyValue value={value} />
                </dd>
              </div>
            ))}
          </dl>
        )}
      </article>
    </Card>
  );
}

/** A text as written; a list of recommended products one per line, as a template would loop over it; anything else as JSON. */
function PropertyValue({ value }: { value: unknown }) {
  if (typeof value === 'string') return <>{value}</>;
  // The sandbox keeps profiles without null fields (jsonb_strip_nulls), so a product without an image has no `image`.
  const products = z.array(recommendedProductSchema.extend({ image: z.string().nullish() })).safeParse(value);
  if (!products.success) return <>{JSON.stringify(value)}</>;
  if (products.data.length === 0) return <>{sandboxMessages.noRecommendations}</>;
  return (
    <ul className="list-disc space-y-1 pl-5">
      {products.data.map((product) => (
        <li key={product.url}>
          {product.title} · {product.price}
          {product.currency ? ` ${product.currency}` : ''}
        </li>
      ))}
    </ul>
  );
}
