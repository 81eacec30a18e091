import { CreditCard, Globe, PackageCheck, ShoppingCart, type LucideIcon } from 'lucide-react';
import type { FlowType } from '../../shared/flows/flow-types.ts';

/** docs/product/specification.md §2 "Flow page": blue browser, amber cart, red checkout, green post purchase. */
const flowIcons: Record<FlowType, { Icon: LucideIcon; colours: string }> = {
  browser_abandonment: { Icon: Globe, colours: 'bg-blue-100 text-blue-700' },
  abandoned_cart: { Icon: ShoppingCart, colours: 'bg-amber-100 text-amber-700' },
  abandoned_checkout: { Icon: CreditCard, colours: 'bg-red-100 text-red-700' },
  post_purchase: { Icon: PackageCheck, colours: 'bg-green-100 text-green-700' },
};

export function FlowIcon({ flowType, className = '' }: { flowType: FlowType; className?: string }) {
  const { Icon, colours } = flowIcons[flowType];
  return (
    <span data-flow-icon={flowType} className={`inline-flex h-12 w-12 shrink-0 items-center justify-center rounded-full ${colours} ${className}`}>
      <Icon aria-hidden="true" className="h-6 w-6" />
    </span>
  );
}
