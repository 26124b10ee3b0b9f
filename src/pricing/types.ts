/**
 * Machine-readable pricing rules. A mode's rule plus its (validated, defaulted) input determine its cost
 * exactly, in integer microcredits, through the one function in pricing/price.ts.
 */
export type PricingUnit = 'second' | 'image' | '1k_chars' | '1k_tokens' | 'megapixel';

/** Multiply the cost by a factor chosen by an option's value (e.g. resolution tier), in basis points (10000 = ×1). */
export interface OptionMultiplier {
  field: string;
  basisPoints: Record<string, number>;
}

export type PricingRule =
  | { kind: 'flat'; microcredits: number; multipliers?: OptionMultiplier[] }
  | {
      kind: 'per_unit';
      unit: PricingUnit;
      microcreditsPerUnit: number;
      /**
       * The input the quantity comes from. second: a number of seconds (default field `duration`);
       * image: a count (default `num_images`, else `n`, else 1); 1k_chars: a text's length (default `text`);
       * 1k_tokens: prompt (+ `system`) characters / 4 plus `max_tokens` (default field `prompt`);
       * megapixel: `width` × `height`, or an input image's size times `scale`².
       */
      inputField?: string;
      /** Quantity to assume when the input does not say (e.g. default clip length). */
      defaultQuantity?: number;
      /** The least a run costs. */
      minimum?: number;
      multipliers?: OptionMultiplier[];
    };
