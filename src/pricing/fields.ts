import type { PricingRule } from './types.js';
import { hostedPricingFields } from './hosted.js';

/** The input fields a pricing rule reads (an absent one is priced at its default). Pure. */
export function pricingFields(rule: PricingRule): string[] {
  if (rule.kind === 'hosted') return hostedPricingFields(rule);
  const fields = new Set<string>((rule.multipliers ?? []).map((m) => m.field));
  if (rule.kind === 'per_unit') {
    switch (rule.unit) {
      case 'second': fields.add(rule.inputField ?? 'duration'); break;
      case 'image': for (const f of rule.inputField ? [rule.inputField] : ['num_images', 'n']) fields.add(f); break;
      case '1k_chars': fields.add(rule.inputField ?? 'text'); break;
      case '1k_tokens': for (const f of [rule.inputField ?? 'prompt', 'system', 'messages', 'max_tokens']) fields.add(f); break;
      case 'megapixel': for (const f of ['width', 'height', 'scale']) fields.add(f); break;
    }
  }
  return [...fields];
}

/** Pricing inputs a node's own data leaves out, so an estimate prices them at their defaults (in a workflow they usually arrive along edges). Pure. */
export function pricedAtDefault(rule: PricingRule, data: unknown, modeFields?: string[]): string[] {
  const given = data && typeof data === 'object' && !Array.isArray(data) ? (data as Record<string, unknown>) : {};
  return pricingFields(rule).filter((f) => (modeFields === undefined || modeFields.includes(f)) && (given[f] === undefined || given[f] === null));
}
