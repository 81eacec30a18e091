import { pageRoutes } from '../../shared/routes.ts';
import { serviceConditionMessages as m, serviceConditionTitle } from '../../shared/service-conditions/service-condition-messages.ts';
import { Alert } from '../ui/alert.tsx';
import { TextLink } from '../ui/text-link.tsx';
import type { useServiceConditions } from './use-service-conditions.ts';

/**
 * Conditions of the owner's services that every later event meets
 * (docs/decisions/0047-service-conditions.md): each shown once, with its cause and its
 * fix, on the dashboard and on every flow page.
 */
export function ServiceConditions({ conditions }: { conditions: ReturnType<typeof useServiceConditions>['data'] }) {
  const shown = conditions?.conditions ?? [];
  if (shown.length === 0) return null;
  return (
    <div className="space-y-3" data-testid="service-conditions">
      {shown.map((condition) => (
        <Alert key={`${condition.kind}-${condition.subject}`} tone="warning" title={serviceConditionTitle(condition)}>
          <p>{m.cause[condition.kind](condition.detail)}</p>
          <p className="mt-1">
            {m.fix[condition.kind]} <TextLink to={pageRoutes.apiSettings}>{m.fixLink}</TextLink>
          </p>
        </Alert>
      ))}
    </div>
  );
}
