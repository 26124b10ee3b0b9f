/** `formatted` balance: microcredits in millions, two decimals, then `M` (26,170,000 → "26.17M"). Rounds down so it never overstates. */
export function formatMillions(microcredits: bigint): string {
  const negative = microcredits < 0n;
  const abs = negative ? -microcredits : microcredits;
  const hundredths = abs / 10_000n;
  const whole = hundredths / 100n;
  const frac = (hundredths % 100n).toString().padStart(2, '0');
  return `${negative ? '-' : ''}${whole}.${frac}M`;
}
