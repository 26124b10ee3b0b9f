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
    }
  | HostedPricingRule;

/**
 * A cost rule of the hosted service's catalog, evaluated as that service prices (pricing/hosted.ts).
 * `unit` is the hosted rule's type; `cost` the rule as the hosted catalog gives it; `assume` what the
 * estimate takes for quantities known only once the run has happened (a media input's or the output's length).
 */
export interface HostedPricingRule {
  kind: 'hosted';
  unit: HostedCostType;
  cost: Record<string, unknown>;
  assume?: HostedAssumptions;
  multipliers?: never;
}

export type HostedCostType = 'per_token' | 'tiered' | 'fixed' | 'per_second' | 'per_minute' | 'per_character' | 'per_megapixel' | 'per_image';

/** Quantities a hosted rule prices at when the input cannot tell them before the run. */
export interface HostedAssumptions {
  /** Seconds of media whose length only the file (or the output) tells. */
  seconds?: number;
  /** Minutes likewise, for per-minute rules. */
  minutes?: number;
  /** Characters of an empty text (per-character rules). */
  characters?: number;
  /** The least number of tokens an LLM run is priced at. */
  minTokens?: number;
  /** A platform charge the hosted estimates include though the rule does not state it. */
  platformMultiplier?: number;
  /** A per-input-image fee (credits) the hosted estimates include, counted over these fields (at least `min` images). */
  inputImageFee?: { credits: number; fields: string[]; min?: number };
  /** The tier of a tier-key part the input cannot tell (veed-subtitles' source resolution). */
  tierParts?: Record<string, string>;
}
